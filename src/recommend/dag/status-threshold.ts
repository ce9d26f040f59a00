/**
 * What `status: 'ok'` means: the DAG's confidence is at or above a threshold fitted on held-out
 * suggestions so that the held-out DAGs at or above it reach a stated node-F1.
 *
 *   ok(t)     = the held-out DAGs whose confidence is >= t (no-match DAGs never are)
 *   nodeF1(S) = 2 TP / (predicted + gold), micro-averaged over S (tool multisets, as `eval dag`)
 *   t*        = the least t >= floor with nodeF1(ok(t)) >= OK_NODE_F1 and |ok(t)| >= MIN_OK_WORKFLOWS
 *
 * The least such t gives `ok` to as many DAGs as keep the promise; the floor is the reject
 * threshold, so that every DAG at or above t* is `ok` and not `reject`. Below t* the status is
 * the weaker `warn` (still `reject` below the reject threshold). When no t keeps the promise with
 * enough DAGs, t* is 1: no DAG is said `ok` (a DAG's confidence is a geometric mean of node
 * confidences under 1 and dependencies of at most 0.95). OK_NODE_F1 is 0.8: four of five tools
 * of an `ok` workflow right, counting both the extra and the missing ones.
 * O(n log n) in the held-out DAGs.
 */

/** The node-F1 the held-out DAGs said `ok` must reach. */
export const OK_NODE_F1 = 0.8;

/** Fewest held-out DAGs an `ok` set may hold: a node-F1 over fewer says too little. */
export const MIN_OK_WORKFLOWS = 30;

/** Fewer held-out DAGs than this fit no threshold: the request's (or spec 003's) warn threshold serves. */
export const MIN_STATUS_WORKFLOWS = 30;

export interface DagStatusCalibration {
  /** Least DAG confidence for `ok`. */
  readonly threshold: number;
  /** The node-F1 the held-out DAGs at or above it were to reach (OK_NODE_F1 when fitted). */
  readonly target: number;
  /** The node-F1 they reached (0 when none is `ok`), and their share of the held-out DAGs. */
  readonly nodeF1: number;
  readonly share: number;
}

/** One held-out DAG: its confidence and its node counts against the recorded workflow. */
export interface HeldOutDag {
  readonly confidence: number;
  /** Suggested tools the record holds (a tool as often as recorded), suggested tools, recorded tools. */
  readonly matched: number;
  readonly predicted: number;
  readonly gold: number;
}

export function nodeF1(matched: number, predicted: number, gold: number): number {
  return predicted + gold > 0 ? (2 * matched) / (predicted + gold) : 0;
}

/**
 * The threshold t* over `dags` (the no-match ones left out by the caller), or null with fewer
 * than MIN_STATUS_WORKFLOWS. `floor`: the least threshold, the reject one.
 */
export function fitStatusThreshold(dags: readonly HeldOutDag[], floor: number, target = OK_NODE_F1): DagStatusCalibration | null {
  if (dags.length < MIN_STATUS_WORKFLOWS) return null;
  const sorted = [...dags].sort((a, b) => b.confidence - a.confidence);
  let matched = 0;
  let predicted = 0;
  let gold = 0;
  let best: DagStatusCalibration = { threshold: 1, target, nodeF1: 0, share: 0 };
  for (let i = 0; i < sorted.length; i++) {
    const d = sorted[i]!;
    if (d.confidence < floor) break;
    matched += d.matched;
    predicted += d.predicted;
    gold += d.gold;
    // A threshold between equal confidences would split DAGs it cannot tell apart.
    if (i + 1 < sorted.length && sorted[i + 1]!.confidence === d.confidence) continue;
    const f1 = nodeF1(matched, predicted, gold);
    if (i + 1 >= MIN_OK_WORKFLOWS && f1 >= target) best = { threshold: d.confidence, target, nodeF1: f1, share: (i + 1) / sorted.length };
  }
  return best;
}

/** The status of a DAG of this confidence: `reject` below `reject`, `ok` from `ok` up, else `warn`. */
export function statusOf(confidence: number, reject: number, ok: number): 'ok' | 'warn' | 'reject' {
  return confidence < reject ? 'reject' : confidence < ok ? 'warn' : 'ok';
}
