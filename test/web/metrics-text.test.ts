/**
 * The health view's reading of /metrics: samples parsed from the exposition text, and
 * histogram quantiles as Prometheus' histogram_quantile estimates them (hand-computed below),
 * checked also against a live server's own /metrics.
 */
import { describe, expect, it } from 'vitest';
import { histogram, parseMetrics, quantile, sampleValue } from '../../src/web/metrics-text.js';
import { call, startTestServer } from '../service/http/_server.js';

const TEXT = `# HELP x_seconds a histogram
# TYPE x_seconds histogram
x_seconds_bucket{route="/a",le="0.1"} 2
x_seconds_bucket{route="/a",le="0.5"} 6
x_seconds_bucket{route="/a",le="1"} 10
x_seconds_bucket{route="/a",le="+Inf"} 10
x_seconds_bucket{route="/b",le="0.1"} 0
x_seconds_bucket{route="/b",le="0.5"} 0
x_seconds_bucket{route="/b",le="1"} 1
x_seconds_bucket{route="/b",le="+Inf"} 4
up_total 7
quoted{name="a \\"b\\" \\\\ c\\nd"} 1.5
`;

describe('parseMetrics', () => {
  it('reads names, labels (escapes included) and values, skipping comments', () => {
    const samples = parseMetrics(TEXT);
    expect(samples).toHaveLength(10);
    expect(sampleValue(samples, 'up_total')).toBe(7);
    expect(samples.find((s) => s.name === 'quoted')).toEqual({ name: 'quoted', labels: { name: 'a "b" \\ c\nd' }, value: 1.5 });
    expect(sampleValue(samples, 'x_seconds_bucket', { route: '/b', le: '+Inf' })).toBe(4);
    expect(sampleValue(samples, 'missing')).toBeUndefined();
  });
});

describe('quantile', () => {
  const samples = parseMetrics(TEXT);
  const a = histogram(samples, 'x_seconds', { route: '/a' })!;

  it('interpolates inside the bucket the rank falls in', () => {
    expect(a.bounds).toEqual([0.1, 0.5, 1, Infinity]);
    // rank 0.5 * 10 = 5: bucket (0.1, 0.5] holds ranks 2..6 -> 0.1 + 0.4 * (5 - 2) / 4 = 0.4.
    expect(quantile(a, 0.5)).toBeCloseTo(0.4, 12);
    // rank 0.1 * 10 = 1 in the first bucket (0, 0.1]: 0.1 * 1 / 2 = 0.05.
    expect(quantile(a, 0.1)).toBeCloseTo(0.05, 12);
    // rank 9.5 in (0.5, 1] holding ranks 6..10: 0.5 + 0.5 * 3.5 / 4 = 0.9375.
    expect(quantile(a, 0.95)).toBeCloseTo(0.9375, 12);
  });

  it('answers the highest finite bound for a rank in +Inf, and NaN for an empty histogram', () => {
    const b = histogram(samples, 'x_seconds', { route: '/b' })!;
    expect(quantile(b, 0.9)).toBe(1);
    expect(quantile({ bounds: [0.1, Infinity], counts: [0, 0] }, 0.5)).toBeNaN();
    expect(histogram(samples, 'x_seconds', { route: '/none' })).toBeUndefined();
  });

  it("reads a live server's request histogram", async () => {
    const server = await startTestServer();
    try {
      for (let i = 0; i < 3; i++) await call(server.url, '/v1/stats');
      const live = parseMetrics((await call(server.url, '/metrics')).text);
      const h = histogram(live, 'toolgraph_http_request_duration_seconds', { method: 'GET', route: '/v1/stats' })!;
      expect(h.counts[h.counts.length - 1]).toBe(3);
      const p50 = quantile(h, 0.5);
      expect(p50).toBeGreaterThan(0);
      expect(p50).toBeLessThanOrEqual(10);
      expect(sampleValue(live, 'toolgraph_graph_tools')).toBe(5);
    } finally {
      await server.close();
    }
  });
});
