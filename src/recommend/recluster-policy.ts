/**
 * When a rebuild co-clusters the capabilities in full, and when it carries the last full
 * co-clustering over (capability-model.ts, extendClusters). Co-clustering is the largest part
 * of a rebuild once many capabilities are learned (1.6 s of about 3 s at 24,307 capabilities in
 * the `http` bench), while a rebuild under steady ingestion adds a few percent of new ones.
 *
 * Carry over only when all hold: a full co-clustering exists and is younger than `everyMs`, no
 * capability was registered since (registration changes the set by hand: cluster it), and at
 * most `share` of today's capabilities are new since it. Pure.
 */
export interface LastClustering {
  /** Clock time of the full co-clustering (same clock as `now`). */
  readonly at: number;
  /** Ids of the capabilities it clustered. */
  readonly ids: ReadonlySet<string> | ReadonlyMap<string, unknown>;
  /** The registration version it saw. */
  readonly version: number;
}

export interface ReclusterInput {
  readonly last: LastClustering | null;
  readonly now: number;
  readonly version: number;
  readonly capabilities: readonly { readonly id: string }[];
  /** 0 or less: always co-cluster in full. */
  readonly everyMs: number;
  readonly share: number;
}

export function canReuseClusters(input: ReclusterInput): boolean {
  const { last } = input;
  if (last === null || input.everyMs <= 0) return false;
  if (last.version !== input.version || input.now - last.at >= input.everyMs) return false;
  let fresh = 0;
  for (const c of input.capabilities) if (!last.ids.has(c.id)) fresh++;
  return fresh <= input.share * last.ids.size;
}
