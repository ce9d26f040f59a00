/**
 * The health view, read every POLL_MS while it is shown: traces per second (the change of
 * `toolgraph_ingested_traces_total` between two reads of `/metrics`), the model's build and fit
 * state and times (`/v1/stats`), the ingestion lag, and per query route its request count and
 * latency percentiles (p50, p95, p99, estimated from `/metrics`' histogram as Prometheus does,
 * metrics-text.ts) since the server started.
 */
import { getJson, getText, type Stats } from '../api.js';
import { h, messageOf, notice, num, replace, time } from '../dom.js';
import { histogram, parseMetrics, quantile, sampleValue, type Sample } from '../metrics-text.js';
import type { View } from '../view.js';

const POLL_MS = 5_000;
const QUERY_ROUTES = ['/v1/predict', '/v1/search', '/v1/dag', '/v1/patterns', '/v1/graph', '/v1/sessions/:id/steps'];

const ms = (seconds: number): string => (Number.isFinite(seconds) ? `${num(seconds * 1000, 2)} ms` : '—');

function row(label: string, value: string): HTMLElement {
  return h('tr', {}, h('th', { scope: 'row' }, label), h('td', {}, value));
}

function latencyTable(samples: readonly Sample[]): HTMLElement {
  const rows = QUERY_ROUTES.flatMap((route) => {
    const method = route === '/v1/graph' ? 'GET' : 'POST';
    const hist = histogram(samples, 'toolgraph_http_request_duration_seconds', { method, route });
    if (hist === undefined) return [];
    const count = hist.counts[hist.counts.length - 1] ?? 0;
    return [h('tr', {}, h('th', { scope: 'row' }, `${method} ${route}`), h('td', {}, num(count, 0)), h('td', {}, ms(quantile(hist, 0.5))), h('td', {}, ms(quantile(hist, 0.95))), h('td', {}, ms(quantile(hist, 0.99))))];
  });
  return h(
    'table',
    { class: 'latency' },
    h('caption', {}, 'Query latency since the server started'),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'route'), h('th', { scope: 'col' }, 'requests'), h('th', { scope: 'col' }, 'p50'), h('th', { scope: 'col' }, 'p95'), h('th', { scope: 'col' }, 'p99'))),
    h('tbody', {}, ...(rows.length > 0 ? rows : [h('tr', {}, h('td', { colspan: 5 }, 'No query yet.'))])),
  );
}

export function healthView(): View {
  const body = h('div', { class: 'health', 'aria-live': 'polite' });
  let timer: number | undefined;
  let previous: { at: number; traces: number } | null = null;

  async function poll(): Promise<void> {
    try {
      const [stats, text] = await Promise.all([getJson<Stats>('/v1/stats'), getText('/metrics')]);
      const samples = parseMetrics(text);
      const now = performance.now();
      const ingested = sampleValue(samples, 'toolgraph_ingested_traces_total') ?? 0;
      const rate = previous === null ? null : ((ingested - previous.traces) * 1000) / (now - previous.at);
      previous = { at: now, traces: ingested };
      const fit = stats.fit;
      replace(
        body,
        h(
          'table',
          { class: 'figures' },
          h('caption', {}, 'Graph and model'),
          h(
            'tbody',
            {},
            row('traces per second', rate === null ? 'measuring…' : num(rate, 2)),
            row('traces recorded through this server', num(ingested, 0)),
            row('ingestion lag', `${num(sampleValue(samples, 'toolgraph_ingestion_lag_seconds') ?? 0, 3)} s`),
            row('tools, transitions, traces', `${num(stats.tools, 0)}, ${num(stats.transitions, 0)}, ${num(stats.traces, 0)}`),
            row('graph version, model version', `${stats.version}, ${stats.modelVersion}${stats.modelVersion === stats.version ? ' (current)' : ' (a rebuild is due)'}`),
            row('last model build', `${num(stats.rebuildMs, 1)} ms (${stats.offThreadBuilds} off-thread builds, ${stats.slicedBuilds} in stages)`),
            row('weights in force', fit.state === 'fitted' ? `fitted on ${num(fit.traces, 0)} traces at ${fit.fittedAt === null ? '?' : time(fit.fittedAt)} in ${num(fit.ms / 1000, 2)} s` : 'the prior (simple rules), before a fit'),
            row('kept by the fit', fit.kept === null ? '—' : Object.entries(fit.kept).map(([task, rule]) => `${task}: ${rule}`).join(', ')),
            row('fits on this instance', `${fit.fits} done, ${fit.failures} failed, ${num(fit.totalMs / 1000, 2)} s in all${fit.running ? '; one running now' : ''}`),
            row('uptime', `${num(sampleValue(samples, 'toolgraph_uptime_seconds') ?? 0, 0)} s`),
          ),
        ),
        latencyTable(samples),
        h('p', { class: 'hint' }, `Read every ${POLL_MS / 1000} s from /v1/stats and /metrics.`),
      );
    } catch (error) {
      replace(body, notice(messageOf(error), 'error'));
    }
  }

  return {
    id: 'health',
    title: 'Health',
    mount(panel) {
      panel.append(h('h2', {}, 'Health'), body);
    },
    show() {
      void poll();
      clearInterval(timer);
      timer = window.setInterval(() => void poll(), POLL_MS);
    },
    hide() {
      clearInterval(timer);
      timer = undefined;
    },
  };
}
