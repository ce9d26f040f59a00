/**
 * Intent-to-tool association learned from recorded traces: multinomial naive Bayes with each
 * trace's intent tokens credited to each distinct tool the trace called.
 *
 *   fit:   n(t)   = traces crediting tool t           (prior evidence)
 *          c(t,w) = occurrences of token w in the intents of those traces
 *          C(t)   = sum over w of c(t,w)
 *   score: log P(t | q) = log n(t) + sum over query tokens w known to the model of
 *                         log((c(t,w) + alpha) / (C(t) + alpha * V))  - logsumexp(...)
 *
 * Lidstone smoothing alpha (alpha = 1 is Laplace). V is the number of distinct intent tokens in
 * training. Query tokens never seen in training are skipped: they carry no evidence about any tool
 * and, scored, would only favour the tools with the least text. The posterior is normalised with
 * log-sum-exp over tools with evidence; tools no trace ever credited score exactly 0.
 *
 * Sparse layout: log((c + alpha) / (C + alpha V)) = log alpha - log(C + alpha V) + log(1 + c/alpha),
 * so a query token costs one pass over all tools for the dense part plus one over its postings.
 *
 * Complexity: fit O(T + V log V) for T credited tokens; score O(|q| (nTools + postings(w))).
 *
 * Reference: A. McCallum, K. Nigam, "A comparison of event models for naive Bayes text
 * classification", AAAI-98 Workshop on Learning for Text Categorization, 1998.
 */
import { ToolgraphError } from '../schema/errors.js';
import { runStages } from '../graph/stages.js';
import { bm25FromCorpus } from './bm25.js';
import type { IntentCounts } from './intent-counts.js';
import { internCorpus, termId, type InternedCorpus } from './vocabulary.js';
import { toolLogTerms, type IntentModel } from './intent-model.js';

/** One recorded trace: its intent's tokens and the tool indices it called (repeats allowed). */
export interface IntentExample {
  readonly tokens: readonly string[];
  readonly tools: readonly number[];
}

export interface IntentAssociationOptions {
  /** Lidstone smoothing alpha > 0 (1 is Laplace). Default 0.05, see intent-smoothing.ts. */
  readonly smoothing?: number;
}

export type { IntentModel } from './intent-model.js';

export const INTENT_DEFAULTS = { smoothing: 0.05 } as const;

function checkTool(nTools: number, tool: number, where: string): void {
  if (!Number.isInteger(tool) || tool < 0 || tool >= nTools) {
    throw new ToolgraphError(
      'INVALID_INPUT',
      `${where}: tool index must be an integer in [0, ${nTools}), got ${tool}`,
    );
  }
}

export function fitIntentAssociation(
  nTools: number,
  examples: readonly IntentExample[],
  options: IntentAssociationOptions = {},
): IntentModel {
  const smoothing = checkedFit('fitIntentAssociation', nTools, examples, options);
  // A trace that called no tool says nothing about which tool an intent wants.
  const used = examples.filter((e) => e.tools.length > 0);
  return runStages(fitStages(nTools, used, internCorpus(used.map((e) => e.tokens)), smoothing));
}

/**
 * fitIntentAssociation over examples whose tokens are already interned: corpus.docs[e] are the
 * term ids of examples[e]. Examples that call no tool must be left out by the caller, as
 * fitIntentAssociation does. The model is identical to fitIntentAssociation's on the same tokens.
 */
export function fitIntentAssociationInterned(
  nTools: number,
  examples: readonly { readonly tools: readonly number[] }[],
  corpus: InternedCorpus,
  options: IntentAssociationOptions = {},
): IntentModel {
  return runStages(intentAssociationStages(nTools, examples, corpus, options, 'fitIntentAssociationInterned'));
}

/**
 * fitIntentAssociationInterned as stages (runStages, stages.ts): counting, postings, the
 * examples' BM25 index. At a hundred thousand intents the fit is the longest step of a model's
 * text side (about 0.2 s), and a rebuild in slices (Toolgraph.rebuildInSlices) yields between
 * them. Its arguments are checked in the first stage (INVALID_INPUT naming `caller`); it reads
 * nothing else, and they must not change until it is done.
 */
export function* intentAssociationStages(
  nTools: number,
  examples: readonly { readonly tools: readonly number[] }[],
  corpus: InternedCorpus,
  options: IntentAssociationOptions = {},
  caller = 'intentAssociationStages',
): Generator<void, IntentModel> {
  const smoothing = checkedFit(caller, nTools, examples, options);
  if (corpus.docs.length !== examples.length) {
    throw new ToolgraphError('INVALID_INPUT', `${caller}: ${examples.length} examples but ${corpus.docs.length} documents`);
  }
  if (examples.some((e) => e.tools.length === 0)) throw new ToolgraphError('INVALID_INPUT', `${caller}: an example calls no tool`);
  return yield* fitStages(nTools, examples, corpus, smoothing);
}

/**
 * intentAssociationStages from counts kept across rebuilds (intent-counts.ts) over the same
 * records as `corpus` (its documents, interned with `order`, the counts' term log's order): the
 * same model, laid out from the counts instead of counted again, then the examples' BM25 index.
 * The caller falls back to intentAssociationStages where the counts cannot serve (a record
 * without tools, a tool past nTools), so those errors stay that fit's.
 */
export function* countedAssociationStages(
  nTools: number,
  counts: IntentCounts,
  order: Int32Array,
  corpus: InternedCorpus,
  options: IntentAssociationOptions = {},
): Generator<void, IntentModel> {
  const smoothing = checkedFit('countedAssociationStages', nTools, [], options);
  if (counts.refused || counts.maxTool >= nTools || counts.counted !== corpus.docs.length) {
    throw new ToolgraphError('INVALID_INPUT', `countedAssociationStages: counts of ${counts.counted} records for ${corpus.docs.length} documents and ${nTools} tools`);
  }
  const laidOut = counts.model(nTools, order, corpus.vocabulary.terms.length, smoothing);
  yield;
  const examples = bm25FromCorpus(corpus);
  return { ...laidOut, terms: examples.terms, examples };
}

/** Checks a fit's arguments (INVALID_INPUT naming `caller`); returns the smoothing to use. */
function checkedFit(caller: string, nTools: number, examples: readonly { readonly tools: readonly number[] }[], options: IntentAssociationOptions): number {
  const smoothing = options.smoothing ?? INTENT_DEFAULTS.smoothing;
  if (!Number.isInteger(nTools) || nTools < 0) {
    throw new ToolgraphError('INVALID_INPUT', `${caller}: nTools must be an integer >= 0, got ${nTools}`);
  }
  if (!Number.isFinite(smoothing) || smoothing <= 0) {
    throw new ToolgraphError('INVALID_INPUT', `${caller}: smoothing must be a finite number > 0, got ${smoothing}`);
  }
  for (const example of examples) {
    for (const tool of example.tools) checkTool(nTools, tool, caller);
  }
  return smoothing;
}

function* fitStages(
  nTools: number,
  used: readonly { readonly tools: readonly number[] }[],
  corpus: InternedCorpus,
  smoothing: number,
): Generator<void, IntentModel> {
  const { vocabulary, docs } = corpus;
  const nTerms = vocabulary.terms.length;

  // Distinct tools per example, reused across examples: a tool called three times in one trace
  // is one piece of evidence that the intent wanted it, not three.
  const evidence = new Float64Array(nTools);
  const tokenTotal = new Float64Array(nTools);
  const mark = new Int32Array(nTools).fill(-1);
  const distinctTools: number[][] = [];
  for (let e = 0; e < used.length; e++) {
    const tools: number[] = [];
    for (const tool of used[e]!.tools) {
      if (mark[tool] !== e) {
        mark[tool] = e;
        tools.push(tool);
      }
    }
    distinctTools.push(tools);
    for (const tool of tools) {
      evidence[tool]! += 1;
      tokenTotal[tool]! += docs[e]!.length;
    }
  }

  // c(t,w), term-major without a map per pair: every (term occurrence, credited tool) pair is
  // bucketed by term (a counting sort), then each term's bucket is folded into its distinct
  // tools, ascending, with a dense counter.
  const pairStart = new Int32Array(nTerms + 1);
  for (let e = 0; e < used.length; e++) {
    const ids = docs[e]!;
    const width = distinctTools[e]!.length;
    for (let i = 0; i < ids.length; i++) pairStart[ids[i]! + 1]! += width;
  }
  for (let v = 0; v < nTerms; v++) pairStart[v + 1]! += pairStart[v]!;
  yield;
  const pairTool = new Int32Array(pairStart[nTerms]!);
  const cursor = pairStart.slice(0, nTerms);
  for (let e = 0; e < used.length; e++) {
    const ids = docs[e]!;
    const tools = distinctTools[e]!;
    for (let i = 0; i < ids.length; i++) {
      let p = cursor[ids[i]!]!;
      for (let j = 0; j < tools.length; j++) pairTool[p++] = tools[j]!;
      cursor[ids[i]!] = p;
    }
  }
  yield;
  const count = new Float64Array(nTools);
  const postingStart = new Int32Array(nTerms + 1);
  let postingTool = new Int32Array(pairTool.length);
  let postingWeight = new Float64Array(pairTool.length);
  let nPostings = 0;
  for (let v = 0; v < nTerms; v++) {
    const first = nPostings;
    for (let p = pairStart[v]!; p < pairStart[v + 1]!; p++) {
      const tool = pairTool[p]!;
      if (count[tool] === 0) postingTool[nPostings++] = tool;
      count[tool]! += 1;
    }
    const tools = postingTool.subarray(first, nPostings).sort();
    for (let p = 0; p < tools.length; p++) {
      postingWeight[first + p] = Math.log1p(count[tools[p]!]! / smoothing);
      count[tools[p]!] = 0;
    }
    postingStart[v + 1] = nPostings;
  }
  postingTool = postingTool.slice(0, nPostings);
  postingWeight = postingWeight.slice(0, nPostings);

  const { logPrior, logDenominator } = toolLogTerms(evidence, tokenTotal, nTerms, smoothing);

  const exampleToolStart = new Int32Array(used.length + 1);
  for (let e = 0; e < used.length; e++) {
    exampleToolStart[e + 1] = exampleToolStart[e]! + distinctTools[e]!.length;
  }
  const exampleTool = new Int32Array(exampleToolStart[used.length]!);
  for (let e = 0; e < used.length; e++) exampleTool.set(distinctTools[e]!, exampleToolStart[e]!);
  yield;
  // The same interned documents: the BM25 index's term ids are the NB ids.
  const exampleIndex = bm25FromCorpus(corpus);

  return {
    nTools,
    smoothing,
    terms: exampleIndex.terms,
    evidence,
    logPrior,
    logDenominator,
    tokenTotal,
    postingStart,
    postingTool,
    postingWeight,
    examples: exampleIndex,
    exampleToolStart,
    exampleTool,
  };
}

/** Writes P(tool | intent) into `out[0..nTools)`: sums to 1 over tools with evidence, else 0. */
export function scoreIntent(model: IntentModel, tokens: readonly string[], out: Float64Array): void {
  const nTools = model.nTools;
  if (out.length < nTools) {
    throw new ToolgraphError(
      'INVALID_INPUT',
      `scoreIntent: out has length ${out.length}, expected at least ${nTools} (one slot per tool)`,
    );
  }
  const { logPrior, logDenominator, postingStart, postingTool, postingWeight } = model;
  const vocabulary = { terms: model.terms };

  // log P(t | w) + const = log prior(t) + sum_w log P(w | t), where an unseen token contributes
  // log(alpha / denominator(t)) and a seen one log(1 + c / alpha) more (postingWeight).
  const ids: number[] = [];
  for (const token of tokens) {
    const v = termId(vocabulary, token);
    if (v >= 0) ids.push(v);
  }
  const known = ids.length;
  if (known === 0) out.set(logPrior.subarray(0, nTools));
  else {
    const unseen = known * Math.log(model.smoothing);
    for (let t = 0; t < nTools; t++) out[t] = logPrior[t]! + (unseen - known * logDenominator[t]!);
  }
  for (const v of ids) {
    const end = postingStart[v + 1]!;
    for (let p = postingStart[v]!; p < end; p++) out[postingTool[p]!]! += postingWeight[p]!;
  }
  normaliseLogScores(out, nTools);
}

/**
 * exp(x - logsumexp(x)) in place over out[0..n); -Infinity entries become 0. Entries more than
 * 745 below the maximum underflow to 0 in exp anyway, so they skip it.
 */
function normaliseLogScores(out: Float64Array, n: number): void {
  let max = -Infinity;
  for (let t = 0; t < n; t++) if (out[t]! > max) max = out[t]!;
  if (max === -Infinity) {
    out.fill(0, 0, n);
    return;
  }
  const floor = max - 745;
  let sum = 0;
  for (let t = 0; t < n; t++) {
    const x = out[t]!;
    const e = x > floor ? Math.exp(x - max) : 0;
    out[t] = e;
    sum += e;
  }
  const inv = 1 / sum;
  for (let t = 0; t < n; t++) out[t]! *= inv;
}

/** Number of training traces that credited `tool`. */
export function intentEvidence(model: IntentModel, tool: number): number {
  checkTool(model.nTools, tool, 'intentEvidence');
  return model.evidence[tool]!;
}
