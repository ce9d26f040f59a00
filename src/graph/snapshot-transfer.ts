/**
 * A graph snapshot across threads (snapshot-thread.ts): its input handed to the worker and the
 * snapshot handed back, both by transferring their typed arrays' buffers instead of cloning them
 * (a million transitions are some 100 MB of arrays each way).
 */
import { PairIndex, type PairIndexParts } from './pair-index.js';
import { finishSnapshot, orderDetached, type GraphSnapshot, type OrderedInput, type SnapshotInput, type SnapshotOptions } from './snapshot.js';

/** A value to post and the buffers to transfer with it. */
export interface Packed<T> {
  readonly value: T;
  readonly transfer: ArrayBuffer[];
}

/** What the worker receives: a snapshot's ordered input and options, owning their arrays. */
export interface BuildRequest {
  readonly input: OrderedInput;
  readonly options: SnapshotOptions;
}

/** A snapshot as plain data: its second-order index as the PairIndex's parts. */
export type PackedSnapshot = Omit<GraphSnapshot, 'second'> & {
  readonly second: Omit<GraphSnapshot['second'], 'rows'> & { readonly rows: PairIndexParts };
};

/**
 * The snapshot's first stage, ordering the transitions, run here: its arrays are new, the
 * snapshot's own, so they go to the worker as they are (and come back in the snapshot), where a
 * copy of the live graph's columns cost as much as the ordering. The rest is copied: the live
 * graph goes on learning, and stored communities may be views of a snapshot file's bytes, which
 * a transfer would take from their owner.
 */
export function packRequest(input: SnapshotInput, options: SnapshotOptions): Packed<BuildRequest> {
  const value: BuildRequest = {
    input: orderDetached(input),
    options: options.communities === undefined ? options : { ...options, communities: { ...options.communities, communities: options.communities.communities.slice() } },
  };
  return { value, transfer: buffersOf(value) };
}

/** Builds the rest of the snapshot (on the worker) and packs it to send back. */
export function buildPacked(request: BuildRequest): Packed<PackedSnapshot> {
  const snapshot = finishSnapshot(request.input, request.options);
  const rows = snapshot.second.rows;
  if (!(rows instanceof PairIndex)) throw new TypeError('buildPacked: the second-order rows are not a PairIndex');
  const value: PackedSnapshot = { ...snapshot, second: { ...snapshot.second, rows: rows.parts() } };
  return { value, transfer: buffersOf(value) };
}

/** The snapshot the worker sent, with its second-order index revived. */
export function unpackSnapshot(packed: PackedSnapshot): GraphSnapshot {
  return { ...packed, second: { ...packed.second, rows: PairIndex.fromParts(packed.second.rows) } };
}

/** The buffers of every typed array in `value`, each once: plain objects and arrays are walked. */
function buffersOf(value: unknown, found = new Set<ArrayBuffer>()): ArrayBuffer[] {
  if (ArrayBuffer.isView(value)) {
    if (value.buffer instanceof ArrayBuffer) found.add(value.buffer);
  } else if (Array.isArray(value)) {
    // Arrays of strings (tool names) hold no buffer: skipped without a walk.
    if (value.length > 0 && typeof value[0] === 'object') for (const item of value) buffersOf(item, found);
  } else if (value !== null && typeof value === 'object' && !(value instanceof Map)) {
    for (const item of Object.values(value)) buffersOf(item, found);
  }
  return [...found];
}
