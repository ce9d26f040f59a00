/**
 * Bench case `score`: latency of evaluateValue (specs 000/001) per trace, without an embedder
 * (novelty fixed at 0.5) and with the built-in hashed embedder against a full novelty cache
 * (1,000 vectors of 384 dimensions). Seeded synthetic ReasoningTraces of 4-40 steps; p50 / p99
 * over `count` evaluations after a warm-up. Budgets from spec 001: p99 <= 1 ms without an
 * embedder, <= 100 ms with one. Reference: the spec's formula as a bare function of precomputed
 * counts (no validation, no embedding), timed in the same run.
 */
import { createRng } from '../../src/graph/rng.js';
import { evaluateValue } from '../../src/scoring/evaluate-value.js';
import { VectorCache } from '../../src/scoring/vector-cache.js';
import { createHashedEmbedder, hashedEmbedding } from '../../src/text/hashed-embedder.js';

const STEP_TYPES = ['thought', 'tool_call', 'observation', 'error_recovery'] as const;
const DOMAINS = ['finance', 'code', 'medical', 'customer_service', 'travel'] as const;

function syntheticTrace(rng: () => number, i: number): Record<string, unknown> {
  const n = 4 + Math.floor(rng() * 37);
  const steps = Array.from({ length: n }, (_, k) => {
    const type = STEP_TYPES[Math.floor(rng() * (k === 0 ? 1 : 4))]!;
    return type === 'tool_call'
      ? { step_id: k, type, tool: { name: `tool_${Math.floor(rng() * 50)}` }, input: { q: k } }
      : { step_id: k, type, content: `step ${k} of task ${i}: checking item ${Math.floor(rng() * 1000)}` };
  });
  return {
    '@type': 'ReasoningTrace',
    id: `bench:${i}`,
    metadata: { created_at: '2026-01-01T00:00:00Z', task_domain: DOMAINS[i % DOMAINS.length], success: rng() < 0.8, quality_score: 0, visibility: 'network', privacy_level: 'aggregated' },
    task: { objective: `Synthetic task ${i} about topic ${Math.floor(rng() * 100)}` },
    steps,
    outcome: { result_summary: 'done', confidence: rng() },
  };
}

function quantiles(samples: Float64Array): { p50: number; p99: number } {
  samples.sort();
  const at = (p: number): number => samples[Math.min(samples.length - 1, Math.floor(p * samples.length))]!;
  return { p50: Math.round(at(0.5) * 1e4) / 1e4, p99: Math.round(at(0.99) * 1e4) / 1e4 };
}

export async function scoreBench(options: { count?: number; seed?: number } = {}): Promise<Record<string, unknown>> {
  const count = options.count ?? 2000;
  const rng = createRng(options.seed ?? 42);
  const traces = Array.from({ length: count + 200 }, (_, i) => syntheticTrace(rng, i));
  const cache = new VectorCache({ maxElements: 1000, dimensions: 384 });
  for (let i = 0; i < 1000; i++) cache.add(hashedEmbedding(`contributed task ${i} about topic ${i % 100}`));
  const embedder = createHashedEmbedder();

  const time = async (withEmbedder: boolean): Promise<Float64Array> => {
    for (let i = 0; i < 200; i++) await evaluateValue(traces[i], withEmbedder ? { embedder, cache } : { embedder: null });
    const samples = new Float64Array(count);
    for (let i = 0; i < count; i++) {
      const t0 = performance.now();
      await evaluateValue(traces[200 + i], withEmbedder ? { embedder, cache } : { embedder: null });
      samples[i] = performance.now() - t0;
    }
    return samples;
  };
  const without = quantiles(await time(false));
  const withEmb = quantiles(await time(true));

  // Reference: spec 000's weighted sum from precomputed dimensions, the floor of any scorer.
  const dims = traces.map(() => [rng(), rng(), rng(), rng()] as const);
  const ref = new Float64Array(count);
  let sink = 0;
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const [c, nov, d, o] = dims[i]!;
    sink += c * 0.25 + nov * 0.35 + d * 0.15 + o * 0.25;
    ref[i] = performance.now() - t0;
  }
  const reference = quantiles(ref);
  return {
    case: 'score',
    traces: count,
    noEmbedderP50Ms: without.p50,
    noEmbedderP99Ms: without.p99,
    embedderP50Ms: withEmb.p50,
    embedderP99Ms: withEmb.p99,
    cacheVectors: cache.size,
    referenceP99Ms: reference.p99,
    checksum: Math.round(sink),
  };
}
