import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CURVE_QUANTILES, evaluateNoMatch } from '../../src/eval/nomatch-eval.js';
import { loadDataset } from '../../src/schema/dataset.js';

const SAMPLE = fileURLToPath(new URL('../../samples/nestful', import.meta.url));
const TINY = fileURLToPath(new URL('../fixtures/schema/tiny', import.meta.url));

describe('the no-match evaluation', () => {
  it('reports the fitted rule and a calibration curve that trades in-domain answers for refusals', async () => {
    const [dataset, foreign] = await Promise.all([loadDataset(SAMPLE), loadDataset(TINY)]);
    const results = evaluateNoMatch(dataset, [dataset, foreign], 42);
    // The dataset itself is never its own foreign data.
    expect(results.map((x) => x.foreign)).toEqual([foreign.name]);
    const r = results[0]!;
    expect(r.n).toBe(dataset.workflows.filter((w) => w.split === 'test' && w.intent !== '').length);
    expect(r.foreignN).toBe(foreign.workflows.filter((w) => w.split === 'test' && w.intent !== '').length);
    expect(r.hit1).toBeLessThanOrEqual(r.hit1Always);
    expect(r.curve.map((p) => p.quantile)).toEqual([...CURVE_QUANTILES]);
    for (let i = 0; i < r.curve.length; i++) {
      const p = r.curve[i]!;
      // Strictly below the q-quantile: at most a share q of the in-domain queries is refused.
      expect(p.inDomainNoMatch).toBeLessThanOrEqual(p.quantile + 1e-12);
      expect(p.hit1).toBeLessThanOrEqual(r.hit1Always);
      if (i > 0) {
        const q = r.curve[i - 1]!;
        expect(p.threshold).toBeGreaterThanOrEqual(q.threshold);
        expect(p.inDomainNoMatch).toBeGreaterThanOrEqual(q.inDomainNoMatch);
        expect(p.foreignNoMatch).toBeGreaterThanOrEqual(q.foreignNoMatch);
        expect(p.hit1).toBeLessThanOrEqual(q.hit1);
      }
    }
  });
});
