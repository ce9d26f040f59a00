/**
 * Shared by the test/spectral suites: dense views of a SparseMatrix for oracles, and small
 * hand-made capability lists. Seeded planted instances come from the benchmark's generator so
 * tests and bench measure the same model.
 */
import type { SparseMatrix } from '../../src/spectral/bipartite-matrix.js';

export { expectInvalidInput } from '../graph/_helpers.js';
export { plantedCapabilities, purity } from '../../bench/perf/spectral-bench.js';

/** Row-major dense copy. */
export function toDense(m: SparseMatrix): number[][] {
  const out = Array.from({ length: m.rows }, () => new Array<number>(m.cols).fill(0));
  for (let i = 0; i < m.rows; i++) {
    for (let p = m.offsets[i]!; p < m.offsets[i + 1]!; p++) out[i]![m.columns[p]!] = m.values[p]!;
  }
  return out;
}

/** max_i |(A v_j)_i - sigma_j u_j(i)| over the first `rank` triplets (column-major vectors). */
export function tripletResidual(m: SparseMatrix, values: Float64Array, left: Float64Array, right: Float64Array, rank: number): number {
  let worst = 0;
  for (let j = 0; j < rank; j++) {
    for (let i = 0; i < m.rows; i++) {
      let acc = 0;
      for (let p = m.offsets[i]!; p < m.offsets[i + 1]!; p++) acc += m.values[p]! * right[j * m.cols + m.columns[p]!]!;
      worst = Math.max(worst, Math.abs(acc - values[j]! * left[j * m.rows + i]!));
    }
  }
  return worst;
}

/** Groups of tools 0..size-1, size..2size-1, ... each with `perGroup` capabilities using all of the group's tools. */
export function blockCapabilities(groups: number, size: number, perGroup: number): { tools: number[] }[] {
  const caps: { tools: number[] }[] = [];
  for (let g = 0; g < groups; g++) {
    for (let c = 0; c < perGroup; c++) caps.push({ tools: Array.from({ length: size }, (_, i) => g * size + i) });
  }
  return caps;
}
