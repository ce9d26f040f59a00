/**
 * Does a request name its steps in the order they run? Where it names two tools in different
 * clauses ("cancel my repair appointment, and reschedule it for Saturday"), the clause order is
 * evidence of the tools' order, as strong as it proved in the recorded workflows:
 *
 *   odds(clause order is the run order) = (agree + 1) / (disagree + 1)
 *
 * counted over recorded intents with two distinct tools or more, for every pair of them that
 * the intent places in different clauses (Laplace prior: no evidence, even odds). A tool is
 * placed in the clause holding most of its own name terms, those no other tool of the workflow
 * has (`cancellation` and `reschedul` place `appliance_repair_cancellation` and
 * `appliance_repair_rescheduling`; `repair` places neither), on a tie preferring a clause no
 * other tool holds alone (TiePlacement). A term matches a request word equal to it or one that
 * starts with the other, of five letters at least (the light stemmer leaves `modifi` for
 * "modify" beside `modification`). The training splits of ../shared/data agree 92% (UltraTool),
 * 98% (Seal-Tools) and 99% (NESTFUL) of the time; requests that do not follow the run order
 * would count near 50%, and the evidence would then weigh nothing.
 *
 * The records are only ever appended (TransitionGraph.intents()), so the tally is kept per records
 * array and extended by later models. It stops after SAMPLE_RECORDS records of two tools or
 * more: a proportion needs no more (standard error about 1% where most of them place a pair),
 * and splitting a request into clauses costs about 13 us, so the first workflow suggestion
 * after a cold start pays for the sample once (about 50 ms), not for every recorded intent.
 */
import type { IntentRecord } from '../graph/transition-graph.js';
import { clauseParts, type Clause } from './clauses.js';

/** Shortest word prefix that may stand for a longer word (`cancel` for `cancellation`). */
const MIN_PREFIX = 5;
/** Records of two distinct tools or more, after which the tally stops. */
export const SAMPLE_RECORDS = 4_000;

/** Whether a name term and a request word are the same word (or one a stem of the other). */
export function sameWord(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short.length >= MIN_PREFIX && long.startsWith(short);
}

/**
 * How a tool whose terms two clauses or more hold equally is placed: in the earliest of them
 * ('earliest'), or in the earliest of them that no other tool holds alone ('apart'). Steps tend
 * to have clauses of their own: in "first cancel the alarm set for 8, then set one for 7:30",
 * `set` is in both clauses and `cancel` only in the first, so `clock_alarm_set` belongs to the
 * second. On UltraTool's training requests the pairs 'apart' separates follow the run order 78%
 * of the time (82 of the 105 more pairs it places in different clauses; Seal-Tools 37 more in
 * run order and 9 fewer against it). Validation edge-F1 UltraTool 0.521 -> 0.526, five folds of
 * train 0.516 -> 0.519; NESTFUL's five folds 0.493 -> 0.492 (one edge), the rest unchanged.
 */
export type TiePlacement = 'earliest' | 'apart';

/**
 * For each tool (by its name terms; the tools of one workflow, distinct), the index of the
 * clause holding most of its own terms, or -1 when no clause holds any; a tie as `ties` says.
 * A clause marked in `background` recounts what is done ("I have set a daily alarm for 7:30,
 * please cancel it and set a new one"): it places a tool only where no other clause holds any of
 * its terms, so that `set` is the third clause's step, not the first's (validation edge-F1
 * UltraTool 0.518 -> 0.521, five folds of train 0.514 -> 0.516; NESTFUL and Seal-Tools the same
 * on validation, NESTFUL's five folds 0.494 -> 0.493: one edge).
 */
export function clausePositions(
  clauses: readonly (readonly string[])[],
  names: readonly (readonly string[])[],
  background?: readonly boolean[],
  ties: TiePlacement = 'apart',
): Int32Array {
  const best = names.map((terms, i) => bestClauses(clauses, terms.filter((term) => names.every((other, j) => j === i || !other.includes(term))), background));
  const positions = Int32Array.from(best, (b) => (b.length === 1 ? b[0]! : -1));
  const alone = new Set(positions.filter((c) => c >= 0));
  best.forEach((b, i) => {
    if (b.length > 1) positions[i] = (ties === 'apart' ? b.find((c) => !alone.has(c)) : undefined) ?? b[0]!;
  });
  return positions;
}

/** The clauses, in order, that hold most of `own` (an asking clause outranking a recounting one). */
function bestClauses(clauses: readonly (readonly string[])[], own: readonly string[], background?: readonly boolean[]): number[] {
  let most = 0;
  let mostAsks = false;
  let best: number[] = [];
  clauses.forEach((clause, c) => {
    let count = 0;
    for (const term of own) if (clause.some((word) => sameWord(term, word))) count++;
    if (count === 0) return;
    const asks = background?.[c] !== true;
    if (asks === mostAsks && count === most) best.push(c);
    else if (asks === mostAsks ? count > most : asks) {
      most = count;
      mostAsks = asks;
      best = [c];
    }
  });
  return best;
}

/** clausePositions over a request's clauses (clauses.ts clauseParts), their background read. */
export function clausePositionsIn(clauses: readonly Clause[], names: readonly (readonly string[])[], ties: TiePlacement = 'apart'): Int32Array {
  return clausePositions(
    clauses.map((c) => c.tokens),
    names,
    clauses.map((c) => c.background),
    ties,
  );
}

export interface ClauseOrderEvidence {
  /** Pairs placed in different clauses whose clause order is their run order, and those whose is not. */
  readonly agree: number;
  readonly disagree: number;
}

/** ln((agree + 1) / (disagree + 1)): the log-odds that a request's clause order is the run order. */
export function clauseOrderLogOdds(evidence: ClauseOrderEvidence): number {
  return Math.log((evidence.agree + 1) / (evidence.disagree + 1));
}

class Tally implements ClauseOrderEvidence {
  agree = 0;
  disagree = 0;
  /** records[0 .. read) are counted; `last` is records[read - 1], to notice a replaced array. */
  read = 0;
  last: IntentRecord | undefined = undefined;
  /** Records of two tools or more read so far (SAMPLE_RECORDS). */
  sampled = 0;
}

const tallies = new WeakMap<readonly IntentRecord[], Tally>();

/**
 * The clause-order evidence of records[0 .. upTo), tools named by `nameTerms` (indexed like the
 * records' tools): counted once per record and kept for later calls on the same records.
 */
export function clauseOrderEvidence(records: readonly IntentRecord[], upTo: number, nameTerms: readonly (readonly string[])[]): ClauseOrderEvidence {
  let tally = tallies.get(records);
  if (tally === undefined || (tally.read > 0 && records[tally.read - 1] !== tally.last)) tallies.set(records, (tally = new Tally()));
  for (; tally.read < upTo && tally.sampled < SAMPLE_RECORDS; tally.read++) {
    const record = records[tally.read]!;
    tally.last = record;
    // record.tools: distinct, in order of first use.
    if (record.tools.length < 2 || record.intent === '') continue;
    tally.sampled++;
    const positions = clausePositionsIn(clauseParts(record.intent), record.tools.map((t) => nameTerms[t] ?? []));
    for (let a = 0; a < positions.length; a++) {
      for (let b = a + 1; b < positions.length; b++) {
        if (positions[a]! < 0 || positions[b]! < 0 || positions[a] === positions[b]) continue;
        if (positions[a]! < positions[b]!) tally.agree++;
        else tally.disagree++;
      }
    }
  }
  return tally;
}
