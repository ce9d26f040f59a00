import { describe, expect, it } from 'vitest';
import { complexityScore } from '../../src/scoring/complexity.js';
import { evaluateValue, evaluateValueDetailed } from '../../src/scoring/evaluate-value.js';
import { noveltyText } from '../../src/scoring/novelty.js';
import { outcomeConfidenceScore } from '../../src/scoring/outcome-confidence.js';
import { applyValueOverrides } from '../../src/scoring/rule-overrides.js';
import { toolDiversityScore } from '../../src/scoring/tool-diversity.js';
import type { TraceStats } from '../../src/scoring/trace-stats.js';
import { VectorCache } from '../../src/scoring/vector-cache.js';
import { parseScoringWeights, VALUE_WEIGHT_PROFILES, valueWeightsFor } from '../../src/scoring/value-weights.js';
import { parseReasoningTrace } from '../../src/schema/trace.js';
import type { Embedder } from '../../src/text/embedder.js';
import { specExampleTrace } from '../schema/_helpers.js';
import { expectError, expectRejection, reasoningTrace } from './_helpers.js';

/** Spec 000's example: a code review with two tools (shared with the schema tests). */
const SPEC_EXAMPLE = specExampleTrace();

function withDomain(domain: string): typeof SPEC_EXAMPLE {
  return { ...SPEC_EXAMPLE, metadata: { ...SPEC_EXAMPLE.metadata, task_domain: domain } };
}

/** An embedder that looks texts up in a table: novelty by hand. Counts its calls. */
function tableEmbedder(table: Record<string, number[]>, dimensions = 2): Embedder & { calls: number } {
  const embedder = {
    dimensions,
    name: 'table',
    calls: 0,
    embed(texts: readonly string[]): Promise<Float32Array[]> {
      embedder.calls++;
      return Promise.resolve(texts.map((t) => new Float32Array(table[t] ?? new Array(dimensions).fill(0))));
    },
  };
  return embedder;
}

const NO_EMBEDDER = { embedder: null } as const;

describe('evaluateValue on spec 000 example', () => {
  // uniqueTypes = 3 (thought, tool_call, observation), no error recovery, 5 steps, 2 tools.
  //   C = min(1, 3/4 * 0.5 + 0 + 5/20 * 0.2) = 0.375 + 0.05 = 0.425
  //   N = 0.5 (no cache)
  //   D = min(1, 2/5 * 3) = 1
  //   O = 0.95 * 1 = 0.95
  // 'code-review' is not a profile: default weights 0.25 / 0.35 / 0.15 / 0.25.
  //   score = 0.425*0.25 + 0.5*0.35 + 1*0.15 + 0.95*0.25 = 0.10625 + 0.175 + 0.15 + 0.2375 = 0.66875
  it('reproduces the default formula by hand', async () => {
    const detail = await evaluateValueDetailed(SPEC_EXAMPLE);
    expect(detail.dimensions.complexity).toBeCloseTo(0.425, 12);
    expect(detail.dimensions.novelty).toBe(0.5);
    expect(detail.dimensions.toolDiversity).toBe(1);
    expect(detail.dimensions.outcomeConfidence).toBeCloseTo(0.95, 12);
    expect(detail.profile).toBe('default');
    expect(detail.domain).toBe('code-review');
    expect(detail.weights).toEqual(VALUE_WEIGHT_PROFILES.default);
    expect(detail.composite).toBeCloseTo(0.66875, 12);
    expect(detail.score).toBeCloseTo(0.66875, 12);
    expect(detail.overrides).toEqual([]);
    expect(detail.novelty).toEqual({ source: 'empty-cache', maxSimilarity: null, embedder: 'hashed-384' });
    expect(detail.stats).toEqual({ steps: 5, uniqueTypes: 3, errorRecoveries: 0, uniqueTools: 2, usesTools: true, singleThought: false });
    expect(await evaluateValue(SPEC_EXAMPLE)).toBe(detail.score);
  });

  // Same dimensions C = 0.425, N = 0.5, D = 1, O = 0.95 under each profile of spec 001:
  //   finance          0.425*0.20 + 0.5*0.25 + 1*0.10 + 0.95*0.45 = 0.085 + 0.125 + 0.10 + 0.4275 = 0.7375
  //   code             0.425*0.20 + 0.5*0.30 + 1*0.30 + 0.95*0.20 = 0.085 + 0.150 + 0.30 + 0.1900 = 0.7250
  //   medical          0.425*0.15 + 0.5*0.20 + 1*0.10 + 0.95*0.55 = 0.06375 + 0.1 + 0.1 + 0.5225 = 0.78625
  //   customer_service 0.425*0.20 + 0.5*0.30 + 1*0.20 + 0.95*0.30 = 0.085 + 0.150 + 0.20 + 0.2850 = 0.7200
  //   default          0.66875 (above)
  const expected: Array<[string, number]> = [
    ['default', 0.66875],
    ['finance', 0.7375],
    ['code', 0.725],
    ['medical', 0.78625],
    ['customer_service', 0.72],
  ];
  for (const [domain, score] of expected) {
    it(`uses the ${domain} profile by hand`, async () => {
      const detail = await evaluateValueDetailed(withDomain(domain), NO_EMBEDDER);
      expect(detail.profile).toBe(domain);
      expect(detail.weights).toEqual(VALUE_WEIGHT_PROFILES[domain as keyof typeof VALUE_WEIGHT_PROFILES]);
      expect(detail.score).toBeCloseTo(score, 12);
    });
  }

  it('silently uses default for unknown domains, matched exactly', async () => {
    for (const domain of ['code-review', 'Finance', ' finance', 'MEDICAL', '', 'constructor', '__proto__', 'toString']) {
      const detail = await evaluateValueDetailed(withDomain(domain), NO_EMBEDDER);
      expect(detail.profile).toBe('default');
      expect(detail.score).toBeCloseTo(0.66875, 12);
    }
  });

  it('every profile sums to 1', () => {
    for (const w of Object.values(VALUE_WEIGHT_PROFILES)) {
      expect(w.complexity + w.novelty + w.toolDiversity + w.outcomeConfidence).toBeCloseTo(1, 12);
      expect(parseScoringWeights(w)).toEqual(w);
    }
    expect(valueWeightsFor('hasOwnProperty').profile).toBe('default');
  });

  it('uses caller weights as the custom profile', async () => {
    // Only D counts: score = D = 1.
    const weights = { complexity: 0, novelty: 0, toolDiversity: 1, outcomeConfidence: 0 };
    const detail = await evaluateValueDetailed(withDomain('finance'), { ...NO_EMBEDDER, weights });
    expect(detail.profile).toBe('custom');
    expect(detail.weights).toEqual(weights);
    expect(detail.score).toBe(1);
  });

  it('returns a plain JSON-serialisable breakdown', async () => {
    const detail = await evaluateValueDetailed(SPEC_EXAMPLE);
    expect(JSON.parse(JSON.stringify(detail))).toEqual(detail);
  });
});

describe('dimensions', () => {
  function stats(partial: Partial<TraceStats>): TraceStats {
    return { steps: 1, uniqueTypes: 1, errorRecoveries: 0, uniqueTools: 0, usesTools: false, singleThought: false, ...partial };
  }

  it('complexity follows the formula, capped only as a whole', () => {
    // 4 types, 1 recovery, 10 steps: 0.5 + 0.3 + 0.1 = 0.9.
    expect(complexityScore(stats({ uniqueTypes: 4, errorRecoveries: 1, steps: 10 }))).toBeCloseTo(0.9, 12);
    // 40 steps of one type: 0.125 + 0.4 = 0.525 (spec 000's formula; its table's "capped at 20" would give 0.325).
    expect(complexityScore(stats({ uniqueTypes: 1, steps: 40 }))).toBeCloseTo(0.525, 12);
    // 4 types, recovery, 20 steps: 0.5 + 0.3 + 0.2 = 1.0; 30 steps: min(1, 1.1) = 1.
    expect(complexityScore(stats({ uniqueTypes: 4, errorRecoveries: 2, steps: 20 }))).toBeCloseTo(1, 12);
    expect(complexityScore(stats({ uniqueTypes: 4, errorRecoveries: 2, steps: 30 }))).toBe(1);
  });

  it('tool diversity is min(1, 3 * uniqueTools / max(1, steps))', () => {
    expect(toolDiversityScore(stats({ steps: 9, uniqueTools: 2 }))).toBeCloseTo(2 / 3, 12);
    expect(toolDiversityScore(stats({ steps: 9, uniqueTools: 3 }))).toBe(1);
    expect(toolDiversityScore(stats({ steps: 4, uniqueTools: 4 }))).toBe(1);
    expect(toolDiversityScore(stats({ steps: 5, uniqueTools: 0 }))).toBe(0);
  });

  it('outcome confidence is confidence, times 0.3 on failure', () => {
    expect(outcomeConfidenceScore(0.9, true)).toBe(0.9);
    expect(outcomeConfidenceScore(0.9, false)).toBeCloseTo(0.27, 12);
  });

  it('counts tools named on any step type, and unique names only', async () => {
    const trace = reasoningTrace({
      steps: [
        { type: 'tool_call', tool: 'search' },
        { type: 'observation', tool: 'search' },
        { type: 'thought', tool: 'fetch' },
      ],
    });
    const detail = await evaluateValueDetailed(trace, NO_EMBEDDER);
    expect(detail.stats.uniqueTools).toBe(2);
    expect(detail.overrides).toEqual([]);
  });
});

describe('rule overrides', () => {
  it('1. a single thought is fixed at 0.1', async () => {
    // C = 1/4*0.5 + 0 + 1/20*0.2 = 0.135, N = 0.5, D = 0, O = 0.8:
    // composite = 0.135*0.25 + 0.175 + 0 + 0.2 = 0.40875 -> 0.1.
    const detail = await evaluateValueDetailed(reasoningTrace({ steps: ['thought'] }), NO_EMBEDDER);
    expect(detail.composite).toBeCloseTo(0.40875, 12);
    expect(detail.score).toBe(0.1);
    expect(detail.overrides).toEqual([{ rule: 'single_thought', before: detail.composite, after: 0.1 }]);
  });

  it('1 then 3: a single thought that names a tool ends at 0.1 - 0.1 = 0', async () => {
    const detail = await evaluateValueDetailed(reasoningTrace({ steps: [{ type: 'thought', tool: 'x' }] }), NO_EMBEDDER);
    expect(detail.overrides.map((o) => o.rule)).toEqual(['single_thought', 'low_tool_diversity']);
    expect(detail.overrides[1]).toEqual({ rule: 'low_tool_diversity', before: 0.1, after: 0 });
    expect(detail.score).toBe(0);
  });

  it('a single non-thought step is not overridden by rule 1', async () => {
    const detail = await evaluateValueDetailed(reasoningTrace({ steps: ['observation'] }), NO_EMBEDDER);
    expect(detail.overrides).toEqual([]);
  });

  const recovering = [
    'thought',
    'tool_call',
    'error_recovery',
    'tool_call',
    'error_recovery',
    'tool_call',
    'error_recovery',
    'observation',
  ] as const;

  it('2. more than 2 error recoveries in a successful trace add 0.1', async () => {
    // 8 steps, 4 types, 3 recoveries, 3 tools:
    // C = min(1, 0.5 + 0.3 + 8/20*0.2) = 0.88; D = min(1, 3/8*3) = 1; O = 0.8; N = 0.5.
    // composite = 0.88*0.25 + 0.175 + 0.15 + 0.2 = 0.745 -> 0.845.
    const detail = await evaluateValueDetailed(reasoningTrace({ steps: recovering }), NO_EMBEDDER);
    expect(detail.composite).toBeCloseTo(0.745, 12);
    expect(detail.score).toBeCloseTo(0.845, 12);
    expect(detail.overrides.map((o) => o.rule)).toEqual(['error_recovery_bonus']);
  });

  it('2. no bonus for a failed trace, or for only 2 recoveries', async () => {
    // Failed: O = 0.8*0.3 = 0.24; composite = 0.22 + 0.175 + 0.15 + 0.06 = 0.605, no bonus.
    const failed = await evaluateValueDetailed(reasoningTrace({ steps: recovering, success: false }), NO_EMBEDDER);
    expect(failed.score).toBeCloseTo(0.605, 12);
    expect(failed.overrides).toEqual([]);
    const two = await evaluateValueDetailed(reasoningTrace({ steps: recovering.slice(0, 6) }), NO_EMBEDDER);
    expect(two.stats.errorRecoveries).toBe(2);
    expect(two.overrides).toEqual([]);
  });

  it('2. the bonus is capped at 1', async () => {
    const weights = { complexity: 0, novelty: 0, toolDiversity: 1, outcomeConfidence: 0 };
    const detail = await evaluateValueDetailed(reasoningTrace({ steps: recovering }), { ...NO_EMBEDDER, weights });
    expect(detail.composite).toBe(1);
    expect(detail.score).toBe(1);
    expect(detail.overrides).toEqual([{ rule: 'error_recovery_bonus', before: 1, after: 1 }]);
  });

  it('3. one unique tool in a trace that uses tools costs 0.1', async () => {
    // tool_call a, observation, tool_call a: C = 2/4*0.5 + 3/20*0.2 = 0.28; D = min(1, 1/3*3) = 1; O = 0.8.
    // composite = 0.07 + 0.175 + 0.15 + 0.2 = 0.595 -> 0.495.
    const trace = reasoningTrace({ steps: [{ type: 'tool_call', tool: 'a' }, 'observation', { type: 'tool_call', tool: 'a' }] });
    const detail = await evaluateValueDetailed(trace, NO_EMBEDDER);
    expect(detail.composite).toBeCloseTo(0.595, 12);
    expect(detail.score).toBeCloseTo(0.495, 12);
    expect(detail.overrides.map((o) => o.rule)).toEqual(['low_tool_diversity']);
  });

  it('3. the penalty is floored at 0, and a trace without tools is not penalised', async () => {
    const weights = { complexity: 0, novelty: 0, toolDiversity: 0, outcomeConfidence: 1 };
    const floor = await evaluateValueDetailed(
      reasoningTrace({ steps: ['tool_call'], success: false, confidence: 0 }),
      { ...NO_EMBEDDER, weights },
    );
    expect(floor.composite).toBe(0);
    expect(floor.score).toBe(0);
    const noTools = await evaluateValueDetailed(reasoningTrace({ steps: ['thought', 'observation'] }), NO_EMBEDDER);
    expect(noTools.stats.uniqueTools).toBe(0);
    expect(noTools.overrides).toEqual([]);
  });

  it('2 then 3: bonus and penalty both apply, in that order', async () => {
    // x, recovery, x, recovery, x, recovery: 6 steps, 2 types, 3 recoveries, 1 tool.
    // C = 0.25 + 0.3 + 0.06 = 0.61; D = 1/6*3 = 0.5; O = 0.8; composite = 0.1525 + 0.175 + 0.075 + 0.2 = 0.6025.
    // +0.1 = 0.7025, then -0.1 = 0.6025.
    const x = { type: 'tool_call', tool: 'x' } as const;
    const trace = reasoningTrace({ steps: [x, 'error_recovery', x, 'error_recovery', x, 'error_recovery'] });
    const detail = await evaluateValueDetailed(trace, NO_EMBEDDER);
    expect(detail.composite).toBeCloseTo(0.6025, 12);
    expect(detail.overrides.map((o) => o.rule)).toEqual(['error_recovery_bonus', 'low_tool_diversity']);
    expect(detail.overrides[0]!.after).toBeCloseTo(0.7025, 12);
    expect(detail.score).toBeCloseTo(0.6025, 12);
  });

  it('applyValueOverrides is the same function on plain stats', () => {
    const base: TraceStats = { steps: 1, uniqueTypes: 1, errorRecoveries: 0, uniqueTools: 0, usesTools: false, singleThought: true };
    expect(applyValueOverrides(0.7, base, true)).toEqual({ score: 0.1, fired: [{ rule: 'single_thought', before: 0.7, after: 0.1 }] });
    expect(applyValueOverrides(0.7, { ...base, singleThought: false }, true)).toEqual({ score: 0.7, fired: [] });
  });
});

describe('novelty', () => {
  it('embeds the objective and every step content, missing contents as empty', () => {
    const trace = parseReasoningTrace(
      reasoningTrace({ objective: 'Find flights', steps: [{ type: 'thought', content: 'plan' }, 'tool_call', { type: 'observation', content: 'ok' }] }),
    );
    expect(noveltyText(trace)).toBe('Find flights plan  ok');
  });

  it('is 1 - max cosine against the cache, by hand', async () => {
    const trace = reasoningTrace({ objective: 'q', steps: ['thought', 'tool_call', 'observation'] });
    const text = 'q   '; // objective, then three empty contents, joined by spaces
    const embedder = tableEmbedder({ [text]: [1, 1] });
    const cache = new VectorCache({ maxElements: 4, dimensions: 2 });
    cache.add([1, 0]);
    const detail = await evaluateValueDetailed(trace, { embedder, cache });
    // cos((1,1), (1,0)) = 1/sqrt 2, N = 1 - 1/sqrt 2.
    expect(detail.novelty).toEqual({ source: 'embedding', maxSimilarity: expect.closeTo(Math.SQRT1_2, 6), embedder: 'table' });
    expect(detail.dimensions.novelty).toBeCloseTo(1 - Math.SQRT1_2, 6);
    // C = 3/4*0.5 + 3/20*0.2 = 0.405, D = min(1, 1/3*3) = 1, O = 0.8; one tool: -0.1.
    const composite = 0.405 * 0.25 + (1 - Math.SQRT1_2) * 0.35 + 1 * 0.15 + 0.8 * 0.25;
    expect(detail.composite).toBeCloseTo(composite, 6);
    expect(detail.score).toBeCloseTo(composite - 0.1, 6);
  });

  it('clamps to 1 when the best match points away', async () => {
    const trace = reasoningTrace({ objective: 'q', steps: ['thought'] });
    const cache = new VectorCache({ maxElements: 4, dimensions: 2 });
    cache.add([-1, 0]);
    const detail = await evaluateValueDetailed(trace, { embedder: tableEmbedder({ 'q ': [1, 0] }), cache });
    expect(detail.novelty.maxSimilarity).toBeCloseTo(-1, 6);
    expect(detail.dimensions.novelty).toBe(1);
  });

  it('is 0.5 with an empty cache, and the embedder is not even called', async () => {
    const embedder = tableEmbedder({});
    const detail = await evaluateValueDetailed(SPEC_EXAMPLE, { embedder, cache: new VectorCache({ maxElements: 2, dimensions: 2 }) });
    expect(detail.dimensions.novelty).toBe(0.5);
    expect(detail.novelty.source).toBe('empty-cache');
    expect(embedder.calls).toBe(0);
  });

  it('is 0.5 with no embedder configured, whatever the cache holds', async () => {
    const cache = new VectorCache({ maxElements: 2, dimensions: 384 });
    cache.add(new Float32Array(384).fill(1));
    const detail = await evaluateValueDetailed(SPEC_EXAMPLE, { embedder: null, cache });
    expect(detail.dimensions.novelty).toBe(0.5);
    expect(detail.novelty).toEqual({ source: 'no-embedder', maxSimilarity: null, embedder: null });
  });

  it('never writes to the cache: scoring alone does not make a trace familiar', async () => {
    const cache = new VectorCache();
    cache.add(new Float32Array(384).fill(0.5), 'seed');
    const first = await evaluateValueDetailed(SPEC_EXAMPLE, { cache });
    const second = await evaluateValueDetailed(SPEC_EXAMPLE, { cache });
    expect(cache.size).toBe(1);
    expect(second.dimensions.novelty).toBe(first.dimensions.novelty);
    expect(first.novelty.source).toBe('embedding');
  });
});

describe('evaluateValue errors', () => {
  it('rejects a trace that is not a valid ReasoningTrace with INVALID_INPUT', async () => {
    await expectRejection(evaluateValue({ ...SPEC_EXAMPLE, steps: [] }), 'INVALID_INPUT', 'evaluateValue');
    await expectRejection(evaluateValue({ ...SPEC_EXAMPLE, outcome: { result_summary: 'x', confidence: 2 } }), 'INVALID_INPUT', 'evaluateValue');
    await expectRejection(evaluateValue({ ...SPEC_EXAMPLE, extra: 1 }), 'INVALID_INPUT', 'evaluateValue');
    await expectRejection(evaluateValue(null), 'INVALID_INPUT', 'evaluateValue');
  });

  it('rejects a trace nested past the JSON depth limit with PAYLOAD_TOO_LARGE', async () => {
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 100; i++) deep = { a: deep };
    const trace = { ...SPEC_EXAMPLE, task: { objective: 'x', input_schema: deep } };
    await expectRejection(evaluateValue(trace), 'PAYLOAD_TOO_LARGE', 'evaluateValue');
  });

  it('rejects bad weights with INVALID_INPUT', async () => {
    const bad = [
      { complexity: 0.5, novelty: 0.5, toolDiversity: 0.5, outcomeConfidence: 0.5 },
      { complexity: 1.5, novelty: -0.5, toolDiversity: 0, outcomeConfidence: 0 },
      { complexity: 1, novelty: 0, toolDiversity: 0 },
      { complexity: 1, novelty: 0, toolDiversity: 0, outcomeConfidence: 0, extra: 0 },
    ];
    for (const weights of bad) {
      await expectRejection(evaluateValue(SPEC_EXAMPLE, { weights: weights as never }), 'INVALID_INPUT', 'evaluateValue');
    }
    expectError(() => parseScoringWeights({ complexity: 1 }), 'INVALID_INPUT', 'parseScoringWeights');
  });

  it('rejects bad options with INVALID_INPUT', async () => {
    await expectRejection(evaluateValue(SPEC_EXAMPLE, null as never), 'INVALID_INPUT', 'evaluateValue');
    await expectRejection(evaluateValue(SPEC_EXAMPLE, { cache: {} as never }), 'INVALID_INPUT', 'evaluateValue');
    await expectRejection(evaluateValue(SPEC_EXAMPLE, { embedder: { dimensions: 3 } as never }), 'INVALID_INPUT', 'evaluateValue');
    // The built-in embedder has 384 dimensions.
    await expectRejection(
      evaluateValue(SPEC_EXAMPLE, { cache: new VectorCache({ dimensions: 8 }) }),
      'INVALID_INPUT',
      'evaluateValue',
    );
  });

  it('rejects an embedder that returns the wrong length with INVALID_INPUT', async () => {
    const cache = new VectorCache({ maxElements: 2, dimensions: 2 });
    cache.add([1, 0]);
    const liar: Embedder = { dimensions: 2, embed: async () => [new Float32Array(3)] };
    await expectRejection(evaluateValue(SPEC_EXAMPLE, { embedder: liar, cache }), 'INVALID_INPUT', 'evaluateValue');
  });
});

describe('evaluateValueDetailed errors', () => {
  it('names itself in its errors', async () => {
    await expectRejection(evaluateValueDetailed({ steps: [] }), 'INVALID_INPUT', 'evaluateValueDetailed');
  });
});
