/**
 * The escalation threshold a service's new sessions run with (engine/confidence-threshold.ts),
 * kept current: calibrated on the service's own traces, with the weights in force, the first
 * time a session needs it and again when those weights change or the traces have grown by a
 * fifth. It runs in the background, in stages with the event loop turning between them (a fold
 * model's build at a time), and sessions meanwhile get the last calibration, else the default.
 */
import { calibrateThreshold, heldOutStages, type ThresholdCalibration } from '../engine/confidence-threshold.js';
import { foldOf } from '../recommend/folds.js';
import type { FittedWeights } from '../recommend/model.js';
import type { ToolInfo, Trace } from '../schema/types.js';
import { iterateTraces, type Store } from '../store/store.js';
import { HELD_OUT_DEFAULTS } from '../engine/confidence-threshold.js';
import { hashedTextEmbedding } from '../text/text-embedding.js';

export interface CalibrationSource {
  /** How many traces the service has, and the weights in force. */
  current(): Promise<{ readonly traces: number; readonly weights: FittedWeights }>;
  read(): Promise<{ readonly traces: readonly Trace[]; readonly catalog: ReadonlyMap<string, ToolInfo> }>;
}

/** Growth of the traces, as a share, that calls for a new calibration. */
const GROWTH = 0.2;

export class ThresholdKeeper {
  private calibration: ThresholdCalibration | null = null;
  private basis: { readonly traces: number; readonly fittedAt: number | null } | null = null;
  private running: Promise<ThresholdCalibration> | null = null;
  private closed = false;

  constructor(
    private readonly source: CalibrationSource | null,
    private readonly settings: { readonly targetPrecision: number; readonly defaultThreshold: number; readonly seed: number },
    private readonly warn: (message: string) => void,
  ) {}

  /** The threshold for a session starting now; starts a calibration in the background when the last one is stale. */
  async threshold(): Promise<{ readonly value: number; readonly source: 'calibrated' | 'default' }> {
    if (this.source !== null && this.running === null && !this.closed) {
      const now = await this.source.current();
      if (this.stale(now.traces, now.weights)) {
        void this.calibrate().catch((error: unknown) => this.warn(`calibrating the escalation threshold failed (${(error as Error).message}); the last threshold stays`));
      }
    }
    const c = this.calibration;
    return c === null ? { value: this.settings.defaultThreshold, source: 'default' } : { value: c.value, source: c.source };
  }

  /** Calibrates now, or waits for the calibration under way. */
  calibrate(): Promise<ThresholdCalibration> {
    this.running ??= this.run().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.running?.catch(() => {});
  }

  private stale(traces: number, weights: FittedWeights): boolean {
    const b = this.basis;
    if (b === null) return traces > 0;
    if ((weights.fit?.fittedAt ?? null) !== b.fittedAt) return true;
    return traces >= b.traces * (1 + GROWTH) && traces - b.traces >= 30;
  }

  private async run(): Promise<ThresholdCalibration> {
    const { targetPrecision, defaultThreshold, seed } = this.settings;
    if (this.source === null) return calibrateThreshold([], targetPrecision, defaultThreshold);
    const { weights, traces: count } = await this.source.current();
    const { traces, catalog } = await this.source.read();
    const stages = heldOutStages(traces, catalog, weights, { seed, embedding: hashedTextEmbedding() });
    for (;;) {
      if (this.closed) throw new Error('the service is closing');
      const step = stages.next();
      if (step.done === true) {
        const calibration = calibrateThreshold(step.value, targetPrecision, defaultThreshold);
        this.calibration = calibration;
        this.basis = { traces: count, fittedAt: weights.fit?.fittedAt ?? null };
        return calibration;
      }
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
}

/**
 * A durable service's traces as a calibration source: read from the store up to the seq its
 * graph has applied, a stable sample of about HELD_OUT_DEFAULTS.maxTraces kept as they are read
 * (so a large store is never held in memory whole), with the engine's catalogue and weights.
 */
export function storeCalibration(
  store: Store,
  engine: { stats(): { readonly traces: number }; readonly fittedWeights: FittedWeights; tools(): readonly ToolInfo[] },
  appliedSeq: () => number,
): CalibrationSource {
  return {
    current: async () => ({ traces: engine.stats().traces, weights: engine.fittedWeights }),
    async read() {
      const through = appliedSeq();
      const m = Math.max(1, Math.ceil(engine.stats().traces / HELD_OUT_DEFAULTS.maxTraces));
      const traces: Trace[] = [];
      for await (const item of iterateTraces(store)) {
        if (item.seq > through) break;
        if (m === 1 || foldOf(`calibration:${item.trace.id}`, m) === 0) traces.push(item.trace);
      }
      return { traces, catalog: new Map(engine.tools().map((t) => [t.name, t])) };
    },
  };
}
