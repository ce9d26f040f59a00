/**
 * Adamic-Adar link score on an undirected CSR: how strongly two tools are tied through shared
 * neighbours, each shared neighbour counting more the fewer neighbours it has.
 *
 *   AA(u, v) = sum over w in N(u) ∩ N(v) of 1 / ln |N(w)|
 *
 * |N(w)| is w's number of distinct neighbours (the row length of the symmetrized CSR, which has
 * no self-loops), unweighted. A common neighbour of two distinct nodes has |N(w)| >= 2, so
 * ln |N(w)| >= ln 2 > 0; a node with |N(w)| = 1 can never be one, and is skipped rather than
 * divided by ln 1 = 0. A node is not its own link candidate: AA(u, u) = 0.
 *
 * adamicAdar: merge of two sorted rows, O(deg u + deg v).
 * adamicAdarFrom: every v at once, O(sum over w in N(u) of deg w), touching only nodes within two
 * hops; the caller owns and reuses the buffers, so a query allocates nothing.
 * Both sum the contributions in increasing w, so they agree bit for bit and AA is exactly symmetric.
 *
 * Reference: Adamic & Adar, "Friends and neighbors on the Web", Social Networks 25(3), 2003;
 * Liben-Nowell & Kleinberg, "The link-prediction problem for social networks", JASIST 58(7), 2007.
 */
import { ToolgraphError } from '../schema/errors.js';
import type { Csr } from './csr.js';

function assertNode(caller: string, name: string, value: number, n: number): void {
  if (!Number.isInteger(value) || value < 0 || value >= n) {
    throw new ToolgraphError(
      'INVALID_INPUT',
      `${caller}: expected ${name} to be an integer node index in [0, ${n}), got ${String(value)}`,
    );
  }
}

/** AA(u, v) on an undirected CSR (from symmetrizeCsr). Throws INVALID_INPUT for an index outside [0, n). */
export function adamicAdar(undirected: Csr, u: number, v: number): number {
  const n = undirected.n;
  assertNode('adamicAdar', 'u', u, n);
  assertNode('adamicAdar', 'v', v, n);
  if (u === v) return 0;
  const { offsets, targets } = undirected;
  let a = offsets[u]!;
  const aEnd = offsets[u + 1]!;
  let b = offsets[v]!;
  const bEnd = offsets[v + 1]!;
  let score = 0;
  while (a < aEnd && b < bEnd) {
    const wa = targets[a]!;
    const wb = targets[b]!;
    if (wa < wb) a++;
    else if (wa > wb) b++;
    else {
      const degree = offsets[wa + 1]! - offsets[wa]!;
      if (degree > 1) score += 1 / Math.log(degree);
      a++;
      b++;
    }
  }
  return score;
}

/**
 * Adds AA(u, v) into out[v] for every v != u with a common neighbour; records each v first
 * touched in `touched` (caller zeroes out[touched[i]] afterwards); returns the number touched.
 *
 * "First touched" means out[v] was 0 when this call first added to it: with a zeroed `out`,
 * touched[0 .. count) lists exactly the v with AA(u, v) > 0, in discovery order. Every
 * contribution is > 0, so a zero is an exact marker; `out` must hold no negative values, or a
 * v could return to 0 and be listed twice. `out` and `touched` need length >= n;
 * INVALID_INPUT otherwise, or for u outside [0, n).
 */
export function adamicAdarFrom(undirected: Csr, u: number, out: Float64Array, touched: Int32Array): number {
  const n = undirected.n;
  assertNode('adamicAdarFrom', 'u', u, n);
  if (out.length < n || touched.length < n) {
    throw new ToolgraphError(
      'INVALID_INPUT',
      `adamicAdarFrom: expected out and touched of length >= ${n}, got ${out.length} and ${touched.length}`,
    );
  }
  const { offsets, targets } = undirected;
  let count = 0;
  const end = offsets[u + 1]!;
  for (let p = offsets[u]!; p < end; p++) {
    const w = targets[p]!;
    const wStart = offsets[w]!;
    const wEnd = offsets[w + 1]!;
    const degree = wEnd - wStart;
    // degree 1: w's only neighbour is u itself, so it is common to no pair (u, v != u).
    if (degree < 2) continue;
    const contribution = 1 / Math.log(degree);
    for (let q = wStart; q < wEnd; q++) {
      const v = targets[q]!;
      if (v === u) continue;
      if (out[v] === 0) touched[count++] = v;
      out[v]! += contribution;
    }
  }
  return count;
}
