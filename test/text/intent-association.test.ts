import { describe, expect, it } from 'vitest';
import { internCorpus } from '../../src/text/vocabulary.js';
import {
  fitIntentAssociation,
  fitIntentAssociationInterned,
  intentEvidence,
  scoreIntent,
  type IntentExample,
} from '../../src/text/intent-association.js';
import { expectCode } from '../helpers/expect-code.js';


// Three tools; tool 2 is never called. The third trace calls tool 1 twice: one credit.
const EXAMPLES: IntentExample[] = [
  { tokens: ['x', 'y'], tools: [0] },
  { tokens: ['x'], tools: [0, 1] },
  { tokens: ['z'], tools: [1, 1] },
];

function score(model: ReturnType<typeof fitIntentAssociation>, tokens: string[]): number[] {
  const out = new Float64Array(model.nTools);
  scoreIntent(model, tokens, out);
  return Array.from(out);
}

describe('fitIntentAssociation / scoreIntent: hand-computed (McCallum and Nigam 1998, multinomial)', () => {
  // n(0) = 2, n(1) = 2, n(2) = 0, so the prior is 1/2, 1/2, 0.
  // c(0,x) = 2, c(0,y) = 1, C(0) = 3; c(1,x) = 1, c(1,z) = 1, C(1) = 2; V = 3 (x, y, z).
  const laplace = fitIntentAssociation(3, EXAMPLES, { smoothing: 1 });

  it('scores one known token with Laplace smoothing', () => {
    // P(0|x) ~ 1/2 * (2+1)/(3+3) = 1/4; P(1|x) ~ 1/2 * (1+1)/(2+3) = 1/5. Normalised: 5/9, 4/9.
    const s = score(laplace, ['x']);
    expect(s[0]).toBeCloseTo(5 / 9, 12);
    expect(s[1]).toBeCloseTo(4 / 9, 12);
    expect(s[2]).toBe(0);
  });

  it('multiplies the likelihoods of several tokens, repeats included', () => {
    // P(0|x,z) ~ 1/2 * 3/6 * 1/6 = 1/24; P(1|x,z) ~ 1/2 * 2/5 * 2/5 = 2/25.
    const s = score(laplace, ['x', 'z']);
    const a = 1 / 24;
    const b = 2 / 25;
    expect(s[0]).toBeCloseTo(a / (a + b), 12);
    expect(s[1]).toBeCloseTo(b / (a + b), 12);
    // P(0|x,x) ~ 1/2 (1/2)^2 = 1/8; P(1|x,x) ~ 1/2 (2/5)^2 = 2/25.
    const r = score(laplace, ['x', 'x']);
    expect(r[0]).toBeCloseTo((1 / 8) / (1 / 8 + 2 / 25), 12);
  });

  it('uses Lidstone smoothing alpha', () => {
    // alpha = 0.5: P(0|y) ~ 1/2 * 1.5/(3 + 1.5) = 1/6; P(1|y) ~ 1/2 * 0.5/(2 + 1.5) = 1/14.
    const lidstone = fitIntentAssociation(3, EXAMPLES, { smoothing: 0.5 });
    const s = score(lidstone, ['y']);
    expect(s[0]).toBeCloseTo((1 / 6) / (1 / 6 + 1 / 14), 12);
    expect(s[1]).toBeCloseTo((1 / 14) / (1 / 6 + 1 / 14), 12);
  });

  it('answers an empty or unknown query with the prior', () => {
    expect(score(laplace, [])).toEqual([0.5, 0.5, 0]);
    expect(score(laplace, ['unknown', '__proto__'])).toEqual([0.5, 0.5, 0]);
  });

  it('counts evidence once per trace and tool', () => {
    expect(intentEvidence(laplace, 0)).toBe(2);
    expect(intentEvidence(laplace, 1)).toBe(2);
    expect(intentEvidence(laplace, 2)).toBe(0);
  });
});

describe('scoreIntent: invariants', () => {
  // A seeded toy corpus: tool t's intents favour word `w${t}`.
  function corpus(nTools: number, n: number, seed: number): IntentExample[] {
    let state = seed;
    const next = (): number => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      return state / 4294967296;
    };
    const out: IntentExample[] = [];
    for (let i = 0; i < n; i++) {
      const tool = Math.floor(next() * (nTools - 1)); // the last tool never appears
      const tokens = [`w${tool}`, `w${Math.floor(next() * nTools)}`, 'common'];
      out.push({ tokens, tools: next() < 0.3 ? [tool, (tool + 1) % (nTools - 1)] : [tool] });
    }
    return out;
  }
  const examples = corpus(6, 80, 3);
  const model = fitIntentAssociation(6, examples);

  it('sums to 1 over tools with evidence and is 0 elsewhere', () => {
    for (const query of [['w0'], ['w3', 'common'], ['nothing'], [], ['w1', 'w1', 'w2', 'w4']]) {
      const s = score(model, query);
      expect(s.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
      expect(s[5]).toBe(0);
      for (const v of s) expect(v).toBeGreaterThanOrEqual(0);
    }
  });

  it('ranks the tool whose intents use the query word first', () => {
    for (let t = 0; t < 5; t++) {
      const s = score(model, [`w${t}`, `w${t}`]);
      expect(s.indexOf(Math.max(...s))).toBe(t);
    }
  });

  it('stays finite on very long queries (log-sum-exp)', () => {
    const long = Array.from({ length: 5000 }, (_, i) => `w${i % 5}`);
    const s = score(model, long);
    expect(s.every(Number.isFinite)).toBe(true);
    expect(s.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
  });

  it('relabelling tools permutes the scores', () => {
    const perm = [3, 0, 5, 1, 4, 2];
    const relabelled = fitIntentAssociation(
      6,
      examples.map((e) => ({ tokens: e.tokens, tools: e.tools.map((t) => perm[t]!) })),
    );
    for (const query of [['w0'], ['w2', 'common']]) {
      const a = score(model, query);
      const b = score(relabelled, query);
      perm.forEach((to, from) => expect(b[to]).toBeCloseTo(a[from]!, 12));
    }
  });

  it('does not depend on example order', () => {
    const reversed = fitIntentAssociation(6, [...examples].reverse());
    const a = score(model, ['w1', 'common']);
    const b = score(reversed, ['w1', 'common']);
    a.forEach((v, t) => expect(b[t]).toBeCloseTo(v, 12));
  });

  it('overwrites out and leaves slots past nTools alone', () => {
    const out = new Float64Array(8).fill(9);
    scoreIntent(model, ['w0'], out);
    expect(out[6]).toBe(9);
    expect(out[7]).toBe(9);
    expect(out[5]).toBe(0);
  });

  it('ignores traces that called no tool', () => {
    const withEmpty = fitIntentAssociation(6, [...examples, { tokens: ['w0', 'zzz'], tools: [] }]);
    expect(withEmpty.terms).toEqual(model.terms);
    expect(score(withEmpty, ['w0'])).toEqual(score(model, ['w0']));
  });

  it('is plain data: a structured clone scores the same', () => {
    const clone = structuredClone(model);
    expect(score(clone, ['w2', 'w3'])).toEqual(score(model, ['w2', 'w3']));
  });

  it('gives all zeros when no trace credits any tool', () => {
    const empty = fitIntentAssociation(3, []);
    expect(score(empty, ['x'])).toEqual([0, 0, 0]);
    expect(intentEvidence(empty, 1)).toBe(0);
    const none = fitIntentAssociation(0, []);
    scoreIntent(none, ['x'], new Float64Array(0));
  });
});

describe('intent association errors', () => {
  it('rejects tool indices outside [0, nTools)', () => {
    expectCode(() => fitIntentAssociation(2, [{ tokens: ['a'], tools: [2] }]), 'INVALID_INPUT');
    expectCode(() => fitIntentAssociation(2, [{ tokens: ['a'], tools: [-1] }]), 'INVALID_INPUT');
    expectCode(() => fitIntentAssociation(2, [{ tokens: ['a'], tools: [0.5] }]), 'INVALID_INPUT');
  });

  it('rejects bad nTools and smoothing', () => {
    expectCode(() => fitIntentAssociation(-1, []), 'INVALID_INPUT');
    expectCode(() => fitIntentAssociation(1.5, []), 'INVALID_INPUT');
    expectCode(() => fitIntentAssociation(2, [], { smoothing: 0 }), 'INVALID_INPUT');
    expectCode(() => fitIntentAssociation(2, [], { smoothing: Number.POSITIVE_INFINITY }), 'INVALID_INPUT');
  });

  it('rejects a short output buffer and an unknown tool for evidence', () => {
    const model = fitIntentAssociation(3, EXAMPLES);
    expectCode(() => scoreIntent(model, ['x'], new Float64Array(2)), 'INVALID_INPUT');
    expectCode(() => intentEvidence(model, 3), 'INVALID_INPUT');
    expectCode(() => intentEvidence(model, -1), 'INVALID_INPUT');
  });
});

describe('fitIntentAssociationInterned', () => {
  it('fits the same model from interned tokens, and refuses examples it cannot use', () => {
    const used = EXAMPLES.filter((e) => e.tools.length > 0);
    const corpus = internCorpus(used.map((e) => e.tokens));
    expect(fitIntentAssociationInterned(3, used, corpus, { smoothing: 0.5 })).toEqual(fitIntentAssociation(3, EXAMPLES, { smoothing: 0.5 }));
    expectCode(() => fitIntentAssociationInterned(3, used.slice(1), corpus), 'INVALID_INPUT');
    expectCode(() => fitIntentAssociationInterned(3, [{ tools: [] }], internCorpus([['x']])), 'INVALID_INPUT');
    expectCode(() => fitIntentAssociationInterned(1, used, corpus), 'INVALID_INPUT');
  });
});
