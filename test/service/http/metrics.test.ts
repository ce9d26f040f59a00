/**
 * HttpMetrics: the ingestion lag against hand-computed clocks, and the exposition text.
 */
import { describe, expect, it } from 'vitest';
import { HttpMetrics, LATENCY_BUCKETS } from '../../../src/service/http/metrics.js';
import { seededService } from './_server.js';

describe('HttpMetrics', () => {
  it('reports the age of the oldest ingestion the model does not include', () => {
    const m = new HttpMetrics();
    expect(m.ingestionLag(0, 1_000)).toBe(0);
    m.ingestion(3, 10, 1_000); // graph at version 10 at t = 1 s
    m.ingestion(0, 10, 1_500); // nothing new ingested: no record
    m.ingestion(2, 12, 2_000);
    expect(m.ingestionLag(9, 4_000)).toBe(3); // both pending: the oldest is 3 s old
    expect(m.ingestionLag(10, 4_000)).toBe(2); // the model reached 10: the one at t = 2 s remains
    expect(m.ingestionLag(12, 4_000)).toBe(0);
    expect(m.ingestionLag(5, 9_000)).toBe(0); // dropped records stay dropped
  });

  it('counts each request once per status and fills cumulative buckets', async () => {
    const m = new HttpMetrics();
    m.observe('POST', '/v1/predict', 200, 0.0007);
    m.observe('POST', '/v1/predict', 200, 0.003);
    m.observe('POST', '/v1/predict', 400, 20);
    const text = await m.render(await seededService());
    expect(text).toContain('toolgraph_http_requests_total{method="POST",route="/v1/predict",status="200"} 2\n');
    expect(text).toContain('toolgraph_http_requests_total{method="POST",route="/v1/predict",status="400"} 1\n');
    const bucket = (le: number | string) => new RegExp(`_bucket\\{method="POST",route="/v1/predict",le="${le}"\\} (\\d+)`).exec(text)?.[1];
    expect(bucket(0.0005)).toBe('0');
    expect(bucket(0.001)).toBe('1');
    expect(bucket(0.005)).toBe('2');
    expect(bucket(LATENCY_BUCKETS[LATENCY_BUCKETS.length - 1]!)).toBe('2'); // 20 s is past the last bucket
    expect(bucket('\\+Inf')).toBe('3');
    expect(text).toContain('toolgraph_http_request_duration_seconds_count{method="POST",route="/v1/predict"} 3\n');
    expect(text).toContain('toolgraph_graph_traces 4\n');
  });

  it('escapes label values', async () => {
    const m = new HttpMetrics();
    m.observe('GET', 'a"b\\c\nd', 200, 0.001);
    const text = await m.render(await seededService());
    expect(text).toContain('route="a\\"b\\\\c\\nd"');
  });
});
