/**
 * What the health view reads from `/metrics`: the Prometheus text exposition format (0.0.4)
 * parsed into samples, and latency quantiles from a histogram's cumulative buckets.
 *
 * Quantiles are estimated as Prometheus' `histogram_quantile` does: find the first bucket whose
 * cumulative count reaches q * total, and interpolate linearly inside it, from the previous
 * bound (0 for the first bucket) to its own; a rank in the +Inf bucket answers the highest finite
 * bound. O(buckets) per quantile. Reference: Prometheus documentation, "Histograms and
 * summaries" and the `histogram_quantile()` function.
 */

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

function unescape(value: string): string {
  return value.replace(/\\(["\\n])/g, (_m, c: string) => (c === 'n' ? '\n' : c));
}

/** Every sample of the text; comments and blank lines are skipped, values parsed as Prometheus writes them (+Inf, NaN). */
export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = LINE.exec(line);
    if (m === null) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL)) labels[l[1]!] = unescape(l[2]!);
    const raw = m[3]!;
    const value = raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw);
    samples.push({ name: m[1]!, labels, value });
  }
  return samples;
}

/** The value of the sample `name` whose labels include `labels`, or undefined. */
export function sampleValue(samples: readonly Sample[], name: string, labels: Readonly<Record<string, string>> = {}): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

export interface Histogram {
  /** Upper bounds, ascending, +Inf last. */
  readonly bounds: readonly number[];
  /** Cumulative counts per bound. */
  readonly counts: readonly number[];
}

/** The histogram `name` (its `_bucket` samples) for the series whose labels include `labels`. */
export function histogram(samples: readonly Sample[], name: string, labels: Readonly<Record<string, string>>): Histogram | undefined {
  const buckets = samples
    .filter((s) => s.name === `${name}_bucket` && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .map((s) => ({ le: s.labels['le'] === '+Inf' ? Infinity : Number(s.labels['le']), count: s.value }))
    .sort((a, b) => a.le - b.le);
  if (buckets.length === 0) return undefined;
  return { bounds: buckets.map((b) => b.le), counts: buckets.map((b) => b.count) };
}

/** The q-quantile (0 < q < 1) of a histogram, as histogram_quantile estimates it; NaN when it holds no observation. */
export function quantile(h: Histogram, q: number): number {
  const total = h.counts[h.counts.length - 1] ?? 0;
  if (!(total > 0)) return NaN;
  const rank = q * total;
  for (let i = 0; i < h.bounds.length; i++) {
    if (h.counts[i]! < rank) continue;
    const upper = h.bounds[i]!;
    if (upper === Infinity) return h.bounds[i - 1] ?? NaN;
    const lower = i === 0 ? 0 : h.bounds[i - 1]!;
    const below = i === 0 ? 0 : h.counts[i - 1]!;
    const inside = h.counts[i]! - below;
    return inside === 0 ? upper : lower + ((upper - lower) * (rank - below)) / inside;
  }
  return NaN;
}
