/**
 * Graph density and the adaptive alpha it sets: how much a search trusts the semantic score
 * over graph signals, given how much of the tool graph has been observed.
 *
 *   density = E / (N (N - 1))            directed, no self-loops; 0 when N < 2
 *   alpha   = max(0.5, 1 - 2 density)    1 on an empty graph, floored at 0.5 from density 0.25
 *
 * O(1). Alpha weighs the semantic score: final = alpha * semantic + (1 - alpha) * graph, and
 * only when there are context tools (see DESIGN.md, "Adaptive alpha").
 *
 * Reference: spec 003 (ADR-033 "Scoring Algorithms & Formulas Reference"), section 1.1.
 */
import { ToolgraphError } from '../schema/errors.js';

/** Directed density E / (N (N - 1)); 0 for fewer than two nodes. INVALID_INPUT unless both are non-negative integers. */
export function graphDensity(nodes: number, edges: number): number {
  if (!Number.isSafeInteger(nodes) || nodes < 0) {
    throw new ToolgraphError('INVALID_INPUT', `graphDensity: expected nodes to be a non-negative integer, got ${String(nodes)}`);
  }
  if (!Number.isSafeInteger(edges) || edges < 0) {
    throw new ToolgraphError('INVALID_INPUT', `graphDensity: expected edges to be a non-negative integer, got ${String(edges)}`);
  }
  if (nodes < 2) return 0;
  return edges / (nodes * (nodes - 1));
}

/**
 * Semantic weight max(0.5, 1 - 2 density), in [0.5, 1]. A density above 1 (self-loops or
 * multi-edges counted) is accepted and floors at 0.5. INVALID_INPUT unless density is a finite number >= 0.
 */
export function adaptiveAlpha(density: number): number {
  if (typeof density !== 'number' || !(density >= 0) || density === Number.POSITIVE_INFINITY) {
    throw new ToolgraphError('INVALID_INPUT', `adaptiveAlpha: expected density to be a finite number >= 0, got ${String(density)}`);
  }
  return Math.max(0.5, 1 - 2 * density);
}
