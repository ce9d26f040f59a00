/**
 * Benchmark case `spectral`: Dhillon co-clustering (src/spectral/co-cluster.ts) of a planted
 * tools x capabilities matrix, quality (purity against the planted groups) beside speed, and the
 * dense ml-matrix SVD route timed in the same run at a size where dense is feasible
 * (1,000 x 100 by default), against the sparse route on the same input, for the ratio.
 *
 * Reported: the median and minimum of `repeats` timed runs after a warm-up (the minimum is the
 * figure least disturbed by other load), purity with coCluster's default embedding and with
 * Dhillon's log2 k vectors, and the leading singular values.
 *
 * Planted model: k groups; tool t and capability c belong to groups t mod k and c mod k; each
 * tool joins `perTool` distinct capabilities, each drawn from its own group with probability
 * pIn and uniformly otherwise. Seeded with createRng; one JSON-able object per call.
 * Single-threaded: Node runs the JavaScript on one core.
 */
import { createRng } from '../../src/graph/rng.js';
import { bipartiteMatrix, type CapabilityMembers, type SparseMatrix } from '../../src/spectral/bipartite-matrix.js';
import { coCluster, type CoClusterOptions } from '../../src/spectral/co-cluster.js';

export interface PlantedOptions {
  readonly tools: number;
  readonly capabilities: number;
  readonly groups: number;
  /** Distinct capabilities per tool; default 8. */
  readonly perTool?: number;
  /** Probability that a membership stays inside the tool's group; default 0.9. */
  readonly pIn?: number;
  readonly seed: number;
}

export interface Planted {
  readonly capabilities: CapabilityMembers[];
  readonly toolGroups: Int32Array;
  readonly capabilityGroups: Int32Array;
}

/** A seeded planted co-cluster instance (see the file header). */
export function plantedCapabilities(options: PlantedOptions): Planted {
  const { tools, capabilities, groups, seed } = options;
  const perTool = Math.min(options.perTool ?? 8, capabilities);
  const pIn = options.pIn ?? 0.9;
  const rng = createRng(seed);
  const toolGroups = new Int32Array(tools);
  const capabilityGroups = new Int32Array(capabilities);
  for (let t = 0; t < tools; t++) toolGroups[t] = t % groups;
  for (let c = 0; c < capabilities; c++) capabilityGroups[c] = c % groups;
  const members: number[][] = Array.from({ length: capabilities }, () => []);
  const chosen = new Int32Array(capabilities).fill(-1);
  for (let t = 0; t < tools; t++) {
    const g = t % groups;
    // Capabilities of group g are g, g + groups, ...; count them once per group size.
    const inGroup = Math.floor((capabilities - 1 - g) / groups) + 1;
    let picked = 0;
    let guard = 0;
    while (picked < perTool && guard++ < perTool * 50) {
      const c = rng() < pIn && inGroup > 0 ? g + groups * Math.floor(rng() * inGroup) : Math.floor(rng() * capabilities);
      if (chosen[c] === t) continue;
      chosen[c] = t;
      members[c]!.push(t);
      picked++;
    }
  }
  return { capabilities: members.map((list) => ({ tools: list })), toolGroups, capabilityGroups };
}

/** Share of items whose found cluster's majority planted group is their own (tools and capabilities together; -1 is a cluster too). */
export function purity(found: readonly Int32Array[], planted: readonly Int32Array[]): number {
  const counts = new Map<number, Map<number, number>>();
  let total = 0;
  for (let s = 0; s < found.length; s++) {
    const f = found[s]!;
    const p = planted[s]!;
    for (let i = 0; i < f.length; i++) {
      const key = f[i]!;
      let row = counts.get(key);
      if (row === undefined) counts.set(key, (row = new Map()));
      row.set(p[i]!, (row.get(p[i]!) ?? 0) + 1);
      total++;
    }
  }
  let agree = 0;
  for (const row of counts.values()) agree += Math.max(...row.values());
  return total === 0 ? 1 : agree / total;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function round(x: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** One warm-up run (JIT), then `repeats` timed runs: median and minimum (the minimum is the least disturbed by other load on the machine). */
function timeCoCluster(matrix: SparseMatrix, options: CoClusterOptions, repeats: number): { ms: number; minMs: number; result: ReturnType<typeof coCluster> } {
  const times: number[] = [];
  let result = coCluster(matrix, options);
  for (let r = 0; r < repeats; r++) {
    const start = performance.now();
    result = coCluster(matrix, options);
    times.push(performance.now() - start);
  }
  return { ms: median(times), minMs: Math.min(...times), result };
}

export interface SpectralBenchOptions {
  /** Default 10,000. */
  readonly tools?: number;
  /** Default 1,000. */
  readonly capabilities?: number;
  /** Planted groups; default 10. */
  readonly groups?: number;
  readonly seed?: number;
  /** Timed runs after one warm-up; the median is reported. Default 5. */
  readonly repeats?: number;
  /** Size of the dense-vs-sparse comparison; default 1,000 x 100. */
  readonly denseTools?: number;
  readonly denseCapabilities?: number;
}

export function spectralBench(options: SpectralBenchOptions = {}): Record<string, unknown> {
  const tools = options.tools ?? 10_000;
  const capabilities = options.capabilities ?? 1_000;
  const groups = options.groups ?? 10;
  const seed = options.seed ?? 42;
  const repeats = options.repeats ?? 5;
  // coCluster's defaults (4 seedings, tolerance 1e-2, blocks of 8), the sparse route forced.
  const coOptions: CoClusterOptions = { kMin: 2, kMax: 16, seed, svd: 'sparse' };

  const planted = plantedCapabilities({ tools, capabilities, groups, seed });
  const buildStart = performance.now();
  const matrix = bipartiteMatrix(planted.capabilities, tools).toolsByCapabilities;
  const buildMs = performance.now() - buildStart;
  const big = timeCoCluster(matrix, coOptions, repeats);
  // Dhillon's original embedding width, for the record (quality only).
  const log2 = coCluster(matrix, { ...coOptions, dimensions: 'log2' });

  const denseTools = options.denseTools ?? 1_000;
  const denseCaps = options.denseCapabilities ?? 100;
  const small = plantedCapabilities({ tools: denseTools, capabilities: denseCaps, groups, seed: seed + 1 });
  const smallMatrix = bipartiteMatrix(small.capabilities, denseTools).toolsByCapabilities;
  const sparseSmall = timeCoCluster(smallMatrix, coOptions, repeats);
  const denseSmall = timeCoCluster(smallMatrix, { ...coOptions, svd: 'dense' }, repeats);

  return {
    case: 'spectral',
    tools,
    capabilities,
    nnz: matrix.columns.length,
    plantedGroups: groups,
    seed,
    buildMs: round(buildMs),
    coClusterMs: round(big.ms),
    coClusterMinMs: round(big.minMs),
    repeats,
    k: big.result.k,
    converged: big.result.converged,
    purity: round(purity([big.result.toolClusters, big.result.capabilityClusters], [planted.toolGroups, planted.capabilityGroups]), 4),
    log2Purity: round(purity([log2.toolClusters, log2.capabilityClusters], [planted.toolGroups, planted.capabilityGroups]), 4),
    topSingularValues: Array.from(big.result.singularValues.subarray(0, groups + 2), (v) => round(v, 4)),
    small: `${denseTools}x${denseCaps}`,
    smallSparseMs: round(sparseSmall.ms),
    smallDenseMs: round(denseSmall.ms),
    smallSparseMinMs: round(sparseSmall.minMs),
    smallDenseMinMs: round(denseSmall.minMs),
    denseOverSparse: round(denseSmall.ms / sparseSmall.ms, 2),
    smallSparsePurity: round(purity([sparseSmall.result.toolClusters, sparseSmall.result.capabilityClusters], [small.toolGroups, small.capabilityGroups]), 4),
    smallDensePurity: round(purity([denseSmall.result.toolClusters, denseSmall.result.capabilityClusters], [small.toolGroups, small.capabilityGroups]), 4),
  };
}
