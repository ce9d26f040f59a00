/**
 * What one instance on a shared database (PostgreSQL) last read or wrote of the state every
 * instance serves besides the traces: the catalogue, the registered capabilities, the fitted
 * weights and the feedback log. Several instances write them; each reads the store's revisions
 * (store.ts, StoreRevisions) when told of a change or on its poll, and then only what moved.
 *
 * Bookkeeping only: the durable service reads the store and applies what this says changed.
 * Entries are compared by content, in the form the store keeps them, so an instance's own write
 * coming back from the store is recognised as nothing new, and an entry replaced in place is not.
 */
import type { FittedWeights } from '../recommend/model.js';
import { weightsRecord } from '../recommend/weights-record.js';
import type { ToolInfo } from '../schema/types.js';
import type { CapabilityInfo, SharedKind, StoreRevisions, StoredPatternFeedback } from '../store/store.js';

/** A catalogue entry as the store keeps it (sql-store.ts, putTools). */
function toolKey(t: ToolInfo): string {
  return JSON.stringify([t.description, t.params.map((p) => [p.name, p.type, p.description, p.required]), t.outputs ?? [], t.outputTypes ?? []]);
}

/** A capability as the store keeps it (sql-store.ts, capabilityBody). */
function capabilityKey(c: CapabilityInfo): string {
  return JSON.stringify([c.description, c.tools, c.ordered, c.code ?? null, c.successes, c.failures]);
}

/** Weights as the store keeps them (weights-record.ts), the fit's account with them. */
function weightsKey(w: FittedWeights): string {
  return JSON.stringify(weightsRecord(w, 'weightsKey'));
}

export class SharedState {
  private readonly seen: Record<SharedKind, number>;
  private readonly tools = new Map<string, string>();
  private readonly capabilities = new Map<string, string>();
  private weights: string | null = null;
  private feedbackSeq = 0;
  /** Seqs of verdicts this instance appended and applied, not to be applied again. */
  private readonly ownVerdicts = new Set<number>();

  /** `revisions`: read before the state itself, so a write in between is read again, never missed. */
  constructor(revisions: StoreRevisions) {
    this.seen = { ...revisions };
  }

  /** The kinds whose revision moved since they were last read; the caller reads them, then calls `read`. */
  moved(now: StoreRevisions): SharedKind[] {
    return (Object.keys(this.seen) as SharedKind[]).filter((kind) => now[kind] !== this.seen[kind]);
  }

  /** `kind` has been read again as of `revision`. */
  read(kind: SharedKind, revision: number): void {
    this.seen[kind] = revision;
  }

  /** Notes catalogue entries as stored: read from the store, or written by this instance. */
  noteTools(tools: readonly ToolInfo[]): void {
    for (const t of tools) this.tools.set(t.name, toolKey(t));
  }

  /** The stored entries that differ from the ones noted (new, or replaced in place). */
  changedTools(stored: readonly ToolInfo[]): ToolInfo[] {
    return stored.filter((t) => this.tools.get(t.name) !== toolKey(t));
  }

  noteCapabilities(capabilities: readonly CapabilityInfo[]): void {
    for (const c of capabilities) this.capabilities.set(c.id, capabilityKey(c));
  }

  changedCapabilities(stored: readonly CapabilityInfo[]): CapabilityInfo[] {
    return stored.filter((c) => this.capabilities.get(c.id) !== capabilityKey(c));
  }

  noteWeights(weights: FittedWeights): void {
    this.weights = weightsKey(weights);
  }

  weightsChanged(stored: FittedWeights): boolean {
    return this.weights !== weightsKey(stored);
  }

  /** A verdict this instance appended (its seq in the log) and applied itself. */
  noteOwnVerdict(seq: number): void {
    if (seq > this.feedbackSeq) this.ownVerdicts.add(seq);
  }

  /** The position in the feedback log to read after. */
  get lastVerdict(): number {
    return this.feedbackSeq;
  }

  /** Of the verdicts read after `lastVerdict`, those other instances gave; moves the position past all. */
  newVerdicts(rows: readonly StoredPatternFeedback[]): StoredPatternFeedback[] {
    const others: StoredPatternFeedback[] = [];
    for (const row of rows) {
      if (row.seq <= this.feedbackSeq) continue;
      this.feedbackSeq = row.seq;
      if (!this.ownVerdicts.delete(row.seq)) others.push(row);
    }
    return others;
  }
}
