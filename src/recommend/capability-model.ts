/**
 * The capability side of a recommender model, built at model build (off the query path):
 *
 *   capabilities  registered ones, then learned ones whose tool set no registered one has
 *                 (mergeCapabilities: deduplication of identical tool sets)
 *   members       each capability's tools as snapshot tool indexes, in run order
 *   clusters      Dhillon co-clustering of the tools x capabilities matrix (spectral/co-cluster),
 *                 ids kept across rebuilds by Hungarian matching (spectral/stable-labels)
 *   centrality    hypergraph PageRank of each capability (spectral/hypergraph-pagerank)
 *   reliability   Beta posterior mean of its outcomes (scoring/beta-reliability), outcomes being
 *                 the registered counts plus the traces that ran it (capability-evidence)
 *   confidence    spec 004's composite confidence once it has run at least once, else NaN
 *   text          BM25 over description + example intents + member tool names and descriptions
 *
 * Cost: O(traces) for the outcomes, the co-clustering (see co-cluster.ts), PageRank on
 * T + C nodes, and the BM25 build over C short documents. A capability the previous model had (the
 * same object) takes its members, its document's term ids and its scores over from it
 * (capability-carry.ts): the result is the same as a build from nothing.
 */
import type { GraphSnapshot } from '../graph/snapshot.js';
import type { Capability } from '../schema/capability.js';
import type { ToolInfo, Trace } from '../schema/types.js';
import { betaReliability, type BetaPrior } from '../scoring/beta-reliability.js';
import { NO_EVIDENCE, patternConfidenceOf } from '../scoring/pattern-confidence.js';
import { bipartiteMatrix, type BipartiteMatrix } from '../spectral/bipartite-matrix.js';
import { coCluster } from '../spectral/co-cluster.js';
import { hypergraphPagerank } from '../spectral/hypergraph-pagerank.js';
import { stableLabels } from '../spectral/stable-labels.js';
import { bm25FromCorpus, type Bm25Index } from '../text/bm25.js';
import { catalogueTokens, identifierTokens } from '../text/tokenize.js';
import { TermLog } from '../text/term-log.js';
import { internIds } from '../text/vocabulary.js';
import { carriedIndex, OutcomeMemo, sameToolPrefix, type CapabilityCarry, type CapabilityOutcome } from './capability-carry.js';
import { capabilityOutcomes, TraceToolSets } from './capability-evidence.js';

export interface CapabilityModel {
  readonly capabilities: readonly Capability[];
  readonly indexById: ReadonlyMap<string, number>;
  /** Tool indexes of each capability, in run order. */
  readonly members: readonly (readonly number[])[];
  readonly matrix: BipartiteMatrix;
  /** Number of spectral clusters. */
  readonly k: number;
  /** Stable cluster id of each tool, -1 for a tool in no capability. */
  readonly toolClusters: Int32Array;
  /** Stable cluster id of each capability, -1 for one without tools. */
  readonly capabilityClusters: Int32Array;
  /** First cluster id not yet used (for the next rebuild's stable labels). */
  readonly nextFreshId: number;
  readonly centrality: Float64Array;
  readonly successes: Int32Array;
  readonly failures: Int32Array;
  readonly reliability: Float64Array;
  /** 1 when the failure rate is credibly above 50%: never suggested. */
  readonly excluded: Uint8Array;
  /** Composite confidence (spec 004), NaN before the first run. */
  readonly confidence: Float64Array;
  readonly text: Bm25Index;
  /** What the next rebuild takes over for the capabilities that did not change. */
  readonly carry: CapabilityCarry;
}

export interface CapabilityModelInput {
  readonly capabilities: readonly Capability[];
  /** Recorded traces, for the capabilities' outcomes; or their index kept across rebuilds. */
  readonly traces: readonly Trace[] | TraceToolSets;
  /** The model this one replaces, for stable cluster ids. */
  readonly previous?: CapabilityModel | null;
  /**
   * Keep `previous`'s co-clustering instead of computing it again (extendClusters): what a
   * caller asks for between full co-clusterings when only a few capabilities are new. Ignored
   * without a previous model.
   */
  readonly reuseClusters?: boolean;
  readonly prior?: BetaPrior;
  readonly seed?: number;
  /**
   * The catalogue's version, a counter the caller moves on every change to it: while it and the
   * catalogue object are the previous build's, a capability that did not change keeps its search
   * document without a look at its tools' entries. Without it every document is checked.
   */
  readonly catalogVersion?: number;
}

/** Registered capabilities first; a learned one is dropped when a registered one (or an earlier learned one) has the same tool set. */
export function mergeCapabilities(registered: readonly Capability[], learned: readonly Capability[]): Capability[] {
  const sets = new Set<string>();
  const out: Capability[] = [];
  for (const c of registered) {
    sets.add(key(c));
    out.push(c);
  }
  for (const c of learned) {
    const k = key(c);
    if (sets.has(k)) continue;
    sets.add(k);
    out.push(c);
  }
  return out;
}

/**
 * Per capability object (read as immutable; the learner reports a changed capability as a new
 * one, learn-capabilities.ts): its tool-set key and its search document, with the catalogue
 * entries the document read. A rebuild makes them again only for capabilities that are new or
 * whose tools' entries were replaced, not for all of them (some 17,000 learned ones at 50,000
 * synthetic traces).
 */
const setKeys = new WeakMap<Capability, string>();
const documents = new WeakMap<Capability, { readonly tokens: string[]; readonly infos: readonly (ToolInfo | undefined)[] }>();

/** The capability's tool set as one string: equal for the same tools in any order. */
function key(c: Capability): string {
  let k = setKeys.get(c);
  if (k === undefined) setKeys.set(c, (k = [...c.tools].sort().join('\u0000')));
  return k;
}

function documentOf(c: Capability, catalog: ReadonlyMap<string, ToolInfo>): string[] {
  const cached = documents.get(c);
  if (cached !== undefined && c.tools.every((tool, i) => catalog.get(tool) === cached.infos[i])) return cached.tokens;
  const tokens = [...catalogueTokens(c.description)];
  for (const example of c.examples) if (example !== c.description) tokens.push(...catalogueTokens(example));
  const infos = c.tools.map((tool) => catalog.get(tool));
  for (const [i, tool] of c.tools.entries()) {
    tokens.push(...identifierTokens(tool));
    const info = infos[i];
    if (info !== undefined) tokens.push(...catalogueTokens(info.description));
  }
  documents.set(c, { tokens, infos });
  return tokens;
}

/**
 * The previous co-clustering carried over to new items, tools first then capabilities: an item
 * the previous model had keeps its cluster; a new capability joins the cluster most of its
 * clustered tools are in (ties to the smaller id), and a tool new to every capability joins the
 * cluster most of its capabilities are in; -1 when nothing of it was clustered. In Dhillon's
 * co-clustering a capability's place is set by its tools, so this is the out-of-sample step of
 * the same model; a full co-clustering replaces it at the caller's cadence.
 */
function extendClusters(previous: CapabilityModel, nTools: number, capabilities: readonly Capability[], members: readonly (readonly number[])[]): Int32Array {
  const labels = alignedPrevious(previous, nTools, capabilities);
  const majority = (clusters: Iterable<number>): number => {
    const votes = new Map<number, number>();
    let best = -1;
    let bestVotes = 0;
    for (const k of clusters) {
      if (k < 0) continue;
      const v = (votes.get(k) ?? 0) + 1;
      votes.set(k, v);
      if (v > bestVotes || (v === bestVotes && k < best)) {
        best = k;
        bestVotes = v;
      }
    }
    return best;
  };
  capabilities.forEach((c, i) => {
    if (!previous.indexById.has(c.id)) labels[nTools + i] = majority(members[i]!.map((t) => labels[t]!));
  });
  const capsOf = new Map<number, number[]>();
  members.forEach((tools, i) => {
    for (const t of tools) {
      if (labels[t]! >= 0) continue;
      let list = capsOf.get(t);
      if (list === undefined) capsOf.set(t, (list = []));
      list.push(labels[nTools + i]!);
    }
  });
  for (const [t, clusters] of capsOf) labels[t] = majority(clusters);
  return labels;
}

/** Previous stable ids aligned with the new items: tools by index, capabilities by id; -1 elsewhere. */
function alignedPrevious(previous: CapabilityModel, nTools: number, capabilities: readonly Capability[]): Int32Array {
  const out = new Int32Array(nTools + capabilities.length).fill(-1);
  out.set(previous.toolClusters.subarray(0, Math.min(nTools, previous.toolClusters.length)));
  capabilities.forEach((c, i) => {
    const old = previous.indexById.get(c.id);
    if (old !== undefined) out[nTools + i] = previous.capabilityClusters[old]!;
  });
  return out;
}

export function buildCapabilityModel(
  graph: Pick<GraphSnapshot, 'n' | 'indexByName'> & { readonly names?: readonly string[] },
  catalog: ReadonlyMap<string, ToolInfo>,
  input: CapabilityModelInput,
): CapabilityModel {
  const nTools = graph.n;
  const capabilities = input.capabilities;
  const previous = input.previous ?? null;
  const carried = previous?.carry ?? null;
  // Without the graph's names there is no telling whether an index still names the same tool.
  const sameTools = carried?.names != null && graph.names !== undefined && sameToolPrefix(carried.names, graph.names);
  const olds = capabilities.map((c, i) => carriedIndex(previous, c, i));
  const complete = new Uint8Array(capabilities.length);
  const members = capabilities.map((c, i) => {
    const old = olds[i]!;
    if (sameTools && old >= 0 && carried.complete[old] === 1) {
      complete[i] = 1;
      return carried.members[old]!;
    }
    const ids: number[] = [];
    for (const tool of c.tools) {
      const t = graph.indexByName.get(tool);
      if (t !== undefined) ids.push(t);
    }
    complete[i] = ids.length === c.tools.length ? 1 : 0;
    return ids;
  });
  const matrix = bipartiteMatrix(members.map((tools) => ({ tools })), nTools);
  let k: number;
  let stable: { readonly labels: Int32Array; readonly nextFreshId: number };
  if (previous !== null && input.reuseClusters === true) {
    k = previous.k;
    stable = { labels: extendClusters(previous, nTools, capabilities, members), nextFreshId: previous.nextFreshId };
  } else {
    // kMin 1: components are clusters already; the largest is split only when its spectrum has a gap.
    const clusters = coCluster(matrix.toolsByCapabilities, { kMin: 1, ...(input.seed === undefined ? {} : { seed: input.seed }) });
    const fresh = new Int32Array(nTools + capabilities.length);
    fresh.set(clusters.toolClusters);
    fresh.set(clusters.capabilityClusters, nTools);
    k = clusters.k;
    stable = previous === null ? stableLabels([], fresh) : stableLabels(alignedPrevious(previous, nTools, capabilities), fresh, { firstFreshId: previous.nextFreshId });
  }
  const centrality = capabilities.length > 0 ? hypergraphPagerank(matrix.toolsByCapabilities).capabilityScores : new Float64Array(0);

  const outcomes = input.traces instanceof TraceToolSets ? input.traces.outcomes(capabilities) : capabilityOutcomes(capabilities, input.traces);
  const n = capabilities.length;
  const successes = new Int32Array(n);
  const failures = new Int32Array(n);
  const reliability = new Float64Array(n);
  const excluded = new Uint8Array(n);
  const confidence = new Float64Array(n);
  const memo = carried !== null && carried.outcomes.prior === input.prior ? carried.outcomes : new OutcomeMemo(input.prior);
  for (let c = 0; c < n; c++) {
    const cap = capabilities[c]!;
    const s = (successes[c] = cap.successes + outcomes.successes[c]!);
    const f = (failures[c] = cap.failures + outcomes.failures[c]!);
    const outcome = memo.get(s, f, () => outcomeOf(s, f, input.prior));
    reliability[c] = outcome.reliability;
    excluded[c] = outcome.excluded ? 1 : 0;
    confidence[c] = outcome.confidence;
  }

  const log = carried?.log ?? new TermLog();
  const sameCatalog = carried !== null && input.catalogVersion !== undefined && carried.catalog === catalog && carried.catalogVersion === input.catalogVersion;
  const documents = capabilities.map((c, i) => (sameCatalog && olds[i]! >= 0 ? carried.documents[olds[i]!]! : documentOf(c, catalog)));
  const documentIds = documents.map((tokens, i) => {
    const old = olds[i]!;
    return carried !== null && old >= 0 && carried.documents[old] === tokens ? carried.documentIds[old]! : log.encode(tokens);
  });
  return {
    capabilities,
    indexById: new Map(capabilities.map((c, i) => [c.id, i])),
    members,
    matrix,
    k,
    toolClusters: stable.labels.slice(0, nTools),
    capabilityClusters: stable.labels.slice(nTools),
    nextFreshId: stable.nextFreshId,
    centrality,
    successes,
    failures,
    reliability,
    excluded,
    confidence,
    text: bm25FromCorpus(internIds(log.terms, documentIds, log.order())),
    carry: { names: graph.names ?? null, members, complete, log, catalog, catalogVersion: input.catalogVersion, documents, documentIds, outcomes: memo },
  };
}

/**
 * Reliability, exclusion and composite confidence of a capability with these outcomes. The
 * confidence is that of a pattern created now with these counts, so neither the time nor the id
 * moves it: a function of the counts alone, which is what lets OutcomeMemo share it.
 */
function outcomeOf(successes: number, failures: number, prior: BetaPrior | undefined): CapabilityOutcome {
  const posterior = betaReliability(successes, failures, prior);
  const runs = successes + failures;
  const confidence =
    runs === 0
      ? Number.NaN
      : patternConfidenceOf({
          id: 'capability',
          kind: 'capability',
          now: 0,
          rules: 'evidence',
          evidence: { ...NO_EVIDENCE, observations: runs, applications: { positive: successes, negative: failures, neutral: 0 } },
        }).composite;
  return { reliability: posterior.mean, excluded: posterior.excluded, confidence };
}
