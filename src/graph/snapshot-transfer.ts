/**
 * A graph snapshot across threads (snapshot-thread.ts): its input copied out of the live graph
 * and handed to the worker, the snapshot handed back, both by transferring their typed arrays'
 * buffers instead of cloning them (a million transitions are some 150 MB of arrays each way).
 */
import { PairIndex, type PairIndexParts } from './pair-index.js';
import { buildSnapshotFrom, type GraphSnapshot, type SnapshotInput, type SnapshotOptions } from './snapshot.js';
import { copyColumns } from './transition-table.js';

/** A value to post and the buffers to transfer with it. */
export interface Packed<T> {
  readonly value: T;
  readonly transfer: ArrayBuffer[];
}

/** What the worker receives: a snapshot's input and options, owning their arrays. */
export interface BuildRequest {
  readonly input: SnapshotInput;
  readonly options: SnapshotOptions;
}

/** A snapshot as plain data: its second-order index as the PairIndex's parts. */
export type PackedSnapshot = Omit<GraphSnapshot, 'second'> & {
  readonly second: Omit<GraphSnapshot['second'], 'rows'> & { readonly rows: PairIndexParts };
};

/**
 * A copy of `input` and `options` that owns every array it holds, ready to transfer: the live
 * graph's columns go on growing on this thread, and stored communities may be views of a
 * snapshot file's bytes, which a transfer would take away from their owner.
 */
export function packRequest(input: SnapshotInput, options: SnapshotOptions): Packed<BuildRequest> {
  const { from, to, stats } = input.transitions;
  const s = input.second;
  const value: BuildRequest = {
    input: {
      ...input,
      transitions: { from: from.slice(), to: to.slice(), stats: copyColumns(stats) },
      second: { contextA: s.contextA.slice(), contextB: s.contextB.slice(), context: s.context.slice(), target: s.target.slice(), success: s.success.slice() },
      calls: input.calls.slice(),
    },
    options: options.communities === undefined ? options : { ...options, communities: { ...options.communities, communities: options.communities.communities.slice() } },
  };
  return { value, transfer: buffersOf(value) };
}

/** Builds the snapshot (on the worker) and packs it to send back. */
export function buildPacked(request: BuildRequest): Packed<PackedSnapshot> {
  const snapshot = buildSnapshotFrom(request.input, request.options);
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
