/**
 * Prometheus metrics in the text exposition format (version 0.0.4), without a client library:
 * request counts and a latency histogram per route, plus gauges read from the service at scrape
 * time (graph size, versions, rebuild time) and the ingestion lag.
 *
 * Ingestion lag: the age of the oldest acknowledged ingestion that the model answering queries
 * does not include yet (0 when the model is current). Each ingestion that advanced the graph
 * records (version, time); a scrape drops the records the model version has reached. The record
 * list is bounded: past MAX_PENDING the newest record is overwritten, which can only make the
 * reported lag of later ingestions too old, never too young.
 *
 * Labels are the route template (`/v1/patterns/:id/feedback`), never the raw URL, so a client
 * cannot grow the series without bound. Observation is O(buckets) with no allocation per request
 * after a series exists.
 */
import type { ToolgraphService } from '../service.js';
import type { SessionMetrics } from '../sessions.js';

/** Seconds. Fine-grained below 10 ms, where the query endpoints live. */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

const MAX_PENDING = 1_024;

interface Series {
  readonly method: string;
  readonly route: string;
  readonly counts: Map<number, number>;
  readonly buckets: Float64Array;
  sum: number;
  count: number;
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

export class HttpMetrics {
  private readonly series = new Map<string, Series>();
  private readonly pendingVersions: number[] = [];
  private readonly pendingTimes: number[] = [];
  private ingested = 0;
  private readonly started = Date.now();

  /** One finished request: its method, route template, status and duration in seconds. */
  observe(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${route}`;
    let s = this.series.get(key);
    if (s === undefined) {
      s = { method, route, counts: new Map(), buckets: new Float64Array(LATENCY_BUCKETS.length), sum: 0, count: 0 };
      this.series.set(key, s);
    }
    s.counts.set(status, (s.counts.get(status) ?? 0) + 1);
    for (let i = 0; i < LATENCY_BUCKETS.length; i++) if (seconds <= LATENCY_BUCKETS[i]!) s.buckets[i]!++;
    s.sum += seconds;
    s.count++;
  }

  /** An acknowledged ingestion of `count` traces that brought the graph to `version`. */
  ingestion(count: number, version: number, now: number = Date.now()): void {
    this.ingested += count;
    if (count === 0) return;
    const last = this.pendingVersions.length - 1;
    if (last >= 0 && this.pendingVersions[last]! >= version) return;
    if (this.pendingVersions.length >= MAX_PENDING) {
      this.pendingVersions[last] = version;
      return;
    }
    this.pendingVersions.push(version);
    this.pendingTimes.push(now);
  }

  /** Seconds since the oldest ingestion the model at `modelVersion` does not include. */
  ingestionLag(modelVersion: number, now: number = Date.now()): number {
    let drop = 0;
    while (drop < this.pendingVersions.length && this.pendingVersions[drop]! <= modelVersion) drop++;
    if (drop > 0) {
      this.pendingVersions.splice(0, drop);
      this.pendingTimes.splice(0, drop);
    }
    return this.pendingTimes.length === 0 ? 0 : (now - this.pendingTimes[0]!) / 1000;
  }

  /** The exposition text, with the service's gauges read now. */
  async render(service: ToolgraphService): Promise<string> {
    const stats = await service.stats();
    const out: string[] = [];
    out.push('# HELP toolgraph_http_requests_total HTTP requests by method, route template and status.');
    out.push('# TYPE toolgraph_http_requests_total counter');
    for (const s of this.series.values()) {
      const labels = `method="${escapeLabel(s.method)}",route="${escapeLabel(s.route)}"`;
      for (const [status, n] of s.counts) out.push(`toolgraph_http_requests_total{${labels},status="${status}"} ${n}`);
    }
    out.push('# HELP toolgraph_http_request_duration_seconds HTTP request latency, from arrival to the last byte sent.');
    out.push('# TYPE toolgraph_http_request_duration_seconds histogram');
    for (const s of this.series.values()) {
      const labels = `method="${escapeLabel(s.method)}",route="${escapeLabel(s.route)}"`;
      LATENCY_BUCKETS.forEach((le, i) => out.push(`toolgraph_http_request_duration_seconds_bucket{${labels},le="${le}"} ${s.buckets[i]}`));
      out.push(`toolgraph_http_request_duration_seconds_bucket{${labels},le="+Inf"} ${s.count}`);
      out.push(`toolgraph_http_request_duration_seconds_sum{${labels}} ${s.sum}`);
      out.push(`toolgraph_http_request_duration_seconds_count{${labels}} ${s.count}`);
    }
    const gauge = (name: string, help: string, value: number, type = 'gauge') => {
      out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, `${name} ${value}`);
    };
    gauge('toolgraph_ingested_traces_total', 'Traces recorded through this server since it started.', this.ingested, 'counter');
    gauge('toolgraph_ingestion_lag_seconds', 'Age of the oldest acknowledged ingestion not yet in the model that answers queries.', this.ingestionLag(stats.modelVersion));
    gauge('toolgraph_graph_tools', 'Tools in the graph.', stats.tools);
    gauge('toolgraph_graph_transitions', 'Distinct transitions (directed edges) in the graph.', stats.transitions);
    gauge('toolgraph_graph_traces', 'Traces the graph has learned from.', stats.traces);
    gauge('toolgraph_graph_version', 'Version of the graph (bumped by every change).', stats.version);
    gauge('toolgraph_model_version', 'Graph version of the model answering queries (-1 before the first build).', stats.modelVersion);
    gauge('toolgraph_rebuild_seconds', 'Duration of the last model rebuild.', stats.rebuildMs / 1000);
    gauge('toolgraph_recent_transitions', 'Tools and context pairs whose successes since the model predictions read live.', stats.recentTransitions);
    gauge('toolgraph_recent_intents', 'Intent records since the model that predictions, search and DAG suggestion read live.', stats.recentIntents);
    gauge('toolgraph_fitted', 'Whether fitted weights are in force (1) or the prior, the simple rules (0).', stats.fit.state === 'fitted' ? 1 : 0);
    gauge('toolgraph_fit_traces', 'Stored traces the weights in force were fitted on.', stats.fit.traces);
    gauge('toolgraph_fits_total', 'Fits this instance finished and installed.', stats.fit.fits, 'counter');
    gauge('toolgraph_fit_failures_total', 'Fits this instance attempted that failed.', stats.fit.failures, 'counter');
    gauge('toolgraph_fit_seconds_total', 'Time the fits of this instance took in all.', stats.fit.totalMs / 1000, 'counter');
    gauge('toolgraph_fit_last_seconds', 'Duration of the fit whose weights are in force.', stats.fit.ms / 1000);
    gauge('toolgraph_uptime_seconds', 'Seconds since this server started.', (Date.now() - this.started) / 1000);
    renderSessionMetrics(out, service.sessions.metrics());
    return `${out.join('\n')}\n`;
  }
}

/** Workflow sessions' counters (spec 002): steps answered by the graph, and per model tier its calls (escalations), tokens and cents. */
function renderSessionMetrics(out: string[], m: SessionMetrics): void {
  const counter = (name: string, help: string, lines: readonly string[]) => out.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`, ...lines);
  const tiers = Object.entries(m.tiers);
  counter('toolgraph_sessions_started_total', 'Workflow sessions started through this instance.', [`toolgraph_sessions_started_total ${m.started}`]);
  counter('toolgraph_session_steps_total', 'Session steps reported through this instance.', [`toolgraph_session_steps_total ${m.steps}`]);
  counter('toolgraph_session_answers_total', 'Session steps by the tier whose answer they got (the graph costs nothing).', [
    `toolgraph_session_answers_total{tier="graph"} ${m.graphAnswers}`,
    ...tiers.map(([tier, c]) => `toolgraph_session_answers_total{tier="${tier}"} ${c.calls - c.failures}`),
  ]);
  counter('toolgraph_session_escalations_total', 'Model calls of session steps, per tier, failed ones included.', tiers.map(([tier, c]) => `toolgraph_session_escalations_total{tier="${tier}"} ${c.calls}`));
  counter('toolgraph_session_escalation_failures_total', 'Model calls whose answer could not be used (the graph answered).', tiers.map(([tier, c]) => `toolgraph_session_escalation_failures_total{tier="${tier}"} ${c.failures}`));
  counter('toolgraph_session_tokens_total', 'Tokens of session model calls as the endpoint reported them, per tier and kind.', tiers.flatMap(([tier, c]) => [
    `toolgraph_session_tokens_total{tier="${tier}",kind="prompt"} ${c.promptTokens}`,
    `toolgraph_session_tokens_total{tier="${tier}",kind="completion"} ${c.completionTokens}`,
  ]));
  counter('toolgraph_session_cents_total', 'US cents charged to sessions for model calls, per tier.', tiers.map(([tier, c]) => `toolgraph_session_cents_total{tier="${tier}"} ${Math.round(c.cents * 1e5) / 1e5}`));
}
