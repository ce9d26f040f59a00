/**
 * Capability scores for the three modes of spec 003 section 4.4, multiplicative per section 4.1:
 *
 *   score(c) = relevance(c) x (1 + structuralBoost(c)) x reliabilityFactor(c)
 *
 *   active search       relevance = semantic match of c to the query (given, in [0, 1])
 *   passive suggestion  relevance = Jaccard(tools(c), context tools)
 *   exploration         relevance = PageRank(c) / max PageRank in c's cluster, for the
 *                       `hubsPerCluster` most central capabilities of each cluster, else 0
 *   structuralBoost(c)  = boost x (share of the clustered context tools in c's spectral cluster)
 *   reliabilityFactor   = reliability ('linear', default), or spec 4.2's guard ('seed'):
 *                         0.2 r below 0.5 (so < 0.1), 0.1 -> 1.2 linearly on [0.5, 0.9], 1.2 above
 *
 * The mode follows the inputs: semantic relevance given -> active search; else context tools
 * given -> passive suggestion; else exploration. A relevance of 0 gives a score of 0 (the
 * filter of 4.2), so the boost only amplifies what is already relevant; boost 0 turns the
 * structural signal off and leaves relevance x reliability. Exploration has no context, so no
 * boost. Spec 4.2's "+0.5 to +1.0 on a cluster match" becomes boost x share so that a context
 * split across clusters boosts each in proportion; with one cluster it is exactly +boost.
 * Spec 4.2 fixes the seed reliability factor only at its ends; the linear middle is ours.
 *
 * O(T + sum |tools(c)| + |context| + C log C).
 *
 * Reference: spec 003 (ADR-033) sections 4.1, 4.2 and 4.4; Dhillon, KDD 2001 (the clusters).
 */
import { ToolgraphError } from '../schema/errors.js';
import type { CapabilityMembers } from './bipartite-matrix.js';

export type CapabilityMode = 'active-search' | 'passive-suggestion' | 'exploration';

export interface CapabilityScoreInput {
  /** Member tools of each capability (tool indexes). */
  readonly capabilities: readonly CapabilityMembers[];
  /** Per capability, in [0, 1]: its success rate or reliability posterior. */
  readonly reliability: ArrayLike<number>;
  /** Spectral cluster of each tool, -1 for none; its length is the number of tools. */
  readonly toolClusters: ArrayLike<number>;
  /** Spectral cluster of each capability, -1 for none. */
  readonly capabilityClusters: ArrayLike<number>;
  /** Tools active in the workflow or request context. */
  readonly contextTools?: readonly number[];
  /** Per capability semantic match to the query, in [0, 1]; present means active search. */
  readonly semanticRelevance?: ArrayLike<number>;
  /** Per capability centrality (hypergraphPagerank capabilityScores); needed for exploration. */
  readonly centrality?: ArrayLike<number>;
}

export interface CapabilityScoreOptions {
  /** Structural boost for a full cluster match; finite >= 0, 0 turns it off. Default 0.5 (spec 4.2's low end). */
  readonly boost?: number;
  /** How reliability becomes a factor; default 'linear'. */
  readonly reliabilityFactor?: 'linear' | 'seed';
  /** Exploration: capabilities proposed per cluster; positive integer; default 3. */
  readonly hubsPerCluster?: number;
}

export interface ScoredCapability {
  readonly capability: number;
  readonly score: number;
  readonly relevance: number;
  readonly structuralBoost: number;
  readonly reliabilityFactor: number;
  readonly cluster: number;
}

export interface CapabilityScoreResult {
  readonly mode: CapabilityMode;
  /** Every capability with a positive score, best first (ties by index). */
  readonly ranked: readonly ScoredCapability[];
}

function invalid(message: string): ToolgraphError {
  return new ToolgraphError('INVALID_INPUT', `capabilityScore: ${message}`);
}

function checkPerCapability(name: string, values: ArrayLike<number> | undefined, count: number, unit: boolean): void {
  if (values === undefined) return;
  if (values.length !== count) throw invalid(`expected ${name} to have one value per capability (${count}), got ${values.length}`);
  for (let c = 0; c < count; c++) {
    const v = values[c]!;
    if (!(v >= 0) || (unit ? v > 1 : v === Number.POSITIVE_INFINITY)) {
      throw invalid(`expected ${name}[${c}] to be ${unit ? 'in [0, 1]' : 'finite and >= 0'}, got ${String(v)}`);
    }
  }
}

/** Spec 4.2: below 0.5 a factor under 0.1, above 0.9 a 1.2 bonus; linear in between (our choice). */
function seedFactor(r: number): number {
  if (r < 0.5) return 0.2 * r;
  if (r > 0.9) return 1.2;
  return 0.1 + ((r - 0.5) * 1.1) / 0.4;
}

export function capabilityScore(input: CapabilityScoreInput, options: CapabilityScoreOptions = {}): CapabilityScoreResult {
  const boost = options.boost ?? 0.5;
  const factorKind = options.reliabilityFactor ?? 'linear';
  const hubsPerCluster = options.hubsPerCluster ?? 3;
  if (typeof boost !== 'number' || !(boost >= 0) || boost === Number.POSITIVE_INFINITY) {
    throw invalid(`expected boost to be a finite number >= 0, got ${String(boost)}`);
  }
  if (factorKind !== 'linear' && factorKind !== 'seed') throw invalid(`expected reliabilityFactor 'linear' or 'seed', got ${String(factorKind)}`);
  if (!Number.isInteger(hubsPerCluster) || hubsPerCluster < 1) {
    throw invalid(`expected hubsPerCluster to be a positive integer, got ${String(hubsPerCluster)}`);
  }
  const { capabilities, reliability, toolClusters, capabilityClusters, contextTools, semanticRelevance, centrality } = input;
  if (!Array.isArray(capabilities)) throw invalid('expected capabilities to be an array of {tools: number[]}');
  const nCaps = capabilities.length;
  const nTools = toolClusters.length;
  checkPerCapability('reliability', reliability, nCaps, true);
  checkPerCapability('semanticRelevance', semanticRelevance, nCaps, true);
  checkPerCapability('centrality', centrality, nCaps, false);
  if (capabilityClusters.length !== nCaps) {
    throw invalid(`expected capabilityClusters to have one value per capability (${nCaps}), got ${capabilityClusters.length}`);
  }
  let maxCluster = -1;
  for (const [name, labels] of [['toolClusters', toolClusters], ['capabilityClusters', capabilityClusters]] as const) {
    for (let i = 0; i < labels.length; i++) {
      const v = labels[i]!;
      if (!Number.isInteger(v) || v < -1) throw invalid(`expected ${name}[${i}] to be an integer >= -1, got ${String(v)}`);
      if (v > maxCluster) maxCluster = v;
    }
  }
  const checkTool = (where: string, t: number): void => {
    if (!Number.isInteger(t) || t < 0 || t >= nTools) throw invalid(`expected ${where} to be a tool index in [0, ${nTools}), got ${String(t)}`);
  };
  for (let c = 0; c < nCaps; c++) {
    const members = capabilities[c]?.tools;
    if (!Array.isArray(members)) throw invalid(`expected capabilities[${c}].tools to be an array of tool indexes`);
    for (let j = 0; j < members.length; j++) checkTool(`capabilities[${c}].tools[${j}]`, members[j]!);
  }
  const context = contextTools ?? [];
  if (!Array.isArray(context)) throw invalid('expected contextTools to be an array of tool indexes');
  for (let j = 0; j < context.length; j++) checkTool(`contextTools[${j}]`, context[j]!);

  const mode: CapabilityMode = semanticRelevance !== undefined ? 'active-search' : context.length > 0 ? 'passive-suggestion' : 'exploration';
  if (mode === 'exploration' && centrality === undefined) {
    throw invalid('expected centrality (hypergraphPagerank capabilityScores) for exploration, with no semanticRelevance and no contextTools');
  }

  // Context as a tool set (stamped) and as a share per cluster.
  const inContext = new Uint8Array(nTools);
  let contextSize = 0;
  for (const t of context) {
    if (inContext[t] === 0) {
      inContext[t] = 1;
      contextSize++;
    }
  }
  const clusterShare = new Float64Array(maxCluster + 1);
  let clustered = 0;
  for (let t = 0; t < nTools; t++) {
    if (inContext[t] === 1 && toolClusters[t]! >= 0) {
      clusterShare[toolClusters[t]!]! += 1;
      clustered++;
    }
  }
  if (clustered > 0) for (let k = 0; k <= maxCluster; k++) clusterShare[k]! /= clustered;

  const relevance = new Float64Array(nCaps);
  if (mode === 'active-search') {
    for (let c = 0; c < nCaps; c++) relevance[c] = semanticRelevance![c]!;
  } else if (mode === 'passive-suggestion') {
    const seen = new Int32Array(nTools).fill(-1);
    for (let c = 0; c < nCaps; c++) {
      let size = 0;
      let shared = 0;
      for (const t of capabilities[c]!.tools) {
        if (seen[t] === c) continue;
        seen[t] = c;
        size++;
        if (inContext[t] === 1) shared++;
      }
      const union = size + contextSize - shared;
      relevance[c] = union === 0 ? 0 : shared / union;
    }
  } else {
    // Hubs: the most central capabilities of each cluster, scaled by their cluster's top one.
    const byCluster: number[][] = Array.from({ length: maxCluster + 1 }, () => []);
    for (let c = 0; c < nCaps; c++) if (capabilityClusters[c]! >= 0) byCluster[capabilityClusters[c]!]!.push(c);
    for (const members of byCluster) {
      members.sort((a, b) => centrality![b]! - centrality![a]! || a - b);
      const top = members.length > 0 ? centrality![members[0]!]! : 0;
      if (!(top > 0)) continue;
      for (let h = 0; h < Math.min(hubsPerCluster, members.length); h++) relevance[members[h]!] = centrality![members[h]!]! / top;
    }
  }

  const ranked: ScoredCapability[] = [];
  for (let c = 0; c < nCaps; c++) {
    const cluster = capabilityClusters[c]!;
    const structuralBoost = mode !== 'exploration' && cluster >= 0 && clustered > 0 ? boost * clusterShare[cluster]! : 0;
    const r = reliability[c]!;
    const reliabilityFactor = factorKind === 'seed' ? seedFactor(r) : r;
    const score = relevance[c]! * (1 + structuralBoost) * reliabilityFactor;
    if (score > 0) ranked.push({ capability: c, score, relevance: relevance[c]!, structuralBoost, reliabilityFactor, cluster });
  }
  ranked.sort((a, b) => b.score - a.score || a.capability - b.capability);
  return { mode, ranked };
}
