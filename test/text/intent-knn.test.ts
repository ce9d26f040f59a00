import { describe, expect, it } from 'vitest';
import { fitIntentAssociation, type IntentExample } from '../../src/text/intent-association.js';
import { scoreIntentKnn } from '../../src/text/intent-knn.js';
import { buildBm25, scoreBm25 } from '../../src/text/bm25.js';
import { expectCode } from '../helpers/expect-code.js';


// A: weather forecast -> tool 0; B: weather -> tool 1; C: stock -> tool 2; tool 3 never called.
const EXAMPLES: IntentExample[] = [
  { tokens: ['weather', 'forecast'], tools: [0] },
  { tokens: ['weather'], tools: [1] },
  { tokens: ['stock'], tools: [2, 2] },
];
const model = fitIntentAssociation(4, EXAMPLES);

function knn(tokens: string[], options?: { k?: number; power?: number }, m = model): number[] {
  const out = new Float64Array(m.nTools);
  scoreIntentKnn(m, tokens, out, options);
  return Array.from(out);
}

describe('scoreIntentKnn: hand-computed (Yang 1999, similarity-weighted kNN)', () => {
  // BM25 over the three intents: |A| = 2, |B| = |C| = 1, avgdl = 4/3.
  // K_A = 1.2 (0.25 + 0.75 * 2 / (4/3)) = 1.65, K_B = 1.2 (0.25 + 0.75 * 0.75) = 0.975.
  // Both contain `weather` once, so s_A / s_B = (1 + K_B) / (1 + K_A) = 1.975 / 2.65.
  const ratio = 1.975 / 2.65;

  it('with k = 1 the closest intent decides alone', () => {
    expect(knn(['weather'], { k: 1 })).toEqual([0, 1, 0, 0]);
  });

  it('with power 0 every neighbour votes equally', () => {
    expect(knn(['weather'], { power: 0 })).toEqual([0.5, 0.5, 0, 0]);
  });

  it('weighs neighbours by (s / max s)^power, default power 4', () => {
    const w = ratio ** 4;
    const s = knn(['weather']);
    expect(s[0]).toBeCloseTo(w / (1 + w), 12);
    expect(s[1]).toBeCloseTo(1 / (1 + w), 12);
    expect(s[2]).toBe(0);
    expect(s[3]).toBe(0);
    const cubic = knn(['weather'], { power: 1 });
    expect(cubic[0]).toBeCloseTo(ratio / (1 + ratio), 12);
  });

  it('a trace that called a tool twice votes once for it', () => {
    expect(knn(['stock'])).toEqual([0, 0, 1, 0]);
  });

  it('falls back to the prior when no intent shares a token with the query', () => {
    // Evidence: one trace each for tools 0, 1, 2.
    for (const s of [knn([]), knn(['unknown'])]) {
      expect(s[0]).toBeCloseTo(1 / 3, 12);
      expect(s[1]).toBeCloseTo(1 / 3, 12);
      expect(s[2]).toBeCloseTo(1 / 3, 12);
      expect(s[3]).toBe(0);
    }
  });

  it('breaks similarity ties in favour of the earlier trace', () => {
    const twins = fitIntentAssociation(2, [
      { tokens: ['same'], tools: [1] },
      { tokens: ['same'], tools: [0] },
    ]);
    expect(knn(['same'], { k: 1 }, twins)).toEqual([0, 1]);
  });
});

describe('scoreIntentKnn: invariants', () => {
  // Seeded random corpus, checked against a brute-force sort of all similarities.
  let state = 11;
  const next = (): number => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 4294967296;
  };
  const words = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
  const examples: IntentExample[] = [];
  for (let i = 0; i < 200; i++) {
    const tokens = Array.from({ length: 1 + Math.floor(next() * 5) }, () => words[Math.floor(next() * words.length)]!);
    const tools = Array.from({ length: 1 + Math.floor(next() * 3) }, () => Math.floor(next() * 7));
    examples.push({ tokens, tools });
  }
  const big = fitIntentAssociation(7, examples);
  const index = buildBm25(examples.map((e) => e.tokens));

  function bruteForce(query: string[], k: number, power: number): number[] {
    const s = new Float64Array(examples.length);
    scoreBm25(index, query, s);
    const order = Array.from(s.keys()).filter((i) => s[i]! > 0).sort((a, b) => s[b]! - s[a]! || a - b).slice(0, k);
    const out = new Array<number>(7).fill(0);
    const best = s[order[0]!]!;
    let total = 0;
    for (const i of order) {
      const w = (s[i]! / best) ** power;
      for (const t of new Set(examples[i]!.tools)) {
        out[t]! += w;
        total += w;
      }
    }
    return out.map((v) => v / total);
  }

  it('matches a brute-force top-k for several k and powers', () => {
    for (const query of [['a'], ['b', 'c'], ['h', 'h', 'a', 'e']]) {
      for (const k of [1, 3, 10, 30, 500]) {
        for (const power of [0, 1, 4]) {
          const got = knn(query, { k, power }, big);
          bruteForce(query, k, power).forEach((v, t) => expect(got[t]).toBeCloseTo(v, 12));
        }
      }
    }
  });

  it('sums to 1 and overwrites out', () => {
    const out = new Float64Array(9).fill(5);
    scoreIntentKnn(big, ['c', 'd'], out);
    expect(Array.from(out.subarray(0, 7)).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    expect(out[7]).toBe(5);
  });

  it('gives all zeros for a model without evidence', () => {
    expect(knn(['x'], {}, fitIntentAssociation(2, []))).toEqual([0, 0]);
  });
});

describe('scoreIntentKnn errors', () => {
  it('rejects bad k, power and a short output buffer', () => {
    expectCode(() => knn(['weather'], { k: 0 }), 'INVALID_INPUT');
    expectCode(() => knn(['weather'], { k: 2.5 }), 'INVALID_INPUT');
    expectCode(() => knn(['weather'], { power: -1 }), 'INVALID_INPUT');
    expectCode(() => knn(['weather'], { power: Number.NaN }), 'INVALID_INPUT');
    expectCode(() => scoreIntentKnn(model, ['weather'], new Float64Array(3)), 'INVALID_INPUT');
  });
});
