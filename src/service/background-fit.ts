/**
 * A durable service fits its own weights (DESIGN.md: the served model learns by itself). After
 * traces are applied, fitDue (fit-policy.ts) says whether enough new ones have arrived since the
 * fit in force; if so, and this instance holds the store's fit lease (one instance of several on
 * one PostgreSQL fits, the others adopt its weights through the shared state), the stored traces
 * are read in pages and fitted on the engine's worker thread (Toolgraph.fitOffThread), with the
 * fit's own one-standard-error rule choosing per task between the fitted ranker and its simple
 * rule. The weights are stored with their account (FitRecord) and installed; queries meanwhile
 * are answered by the weights in force and never wait.
 *
 * An explicit fit (`toolgraph fit`, fit()) takes the same way, whatever the policy says.
 */
import { randomUUID } from 'node:crypto';
import type { FitJobOptions } from '../recommend/fit-job.js';
import type { FitReport } from '../recommend/fit-weights.js';
import type { FitRecord, FittedWeights } from '../recommend/model.js';
import { ToolgraphError } from '../schema/errors.js';
import type { AutoFitSettings } from '../schema/fit-options.js';
import type { Trace } from '../schema/types.js';
import type { Store } from '../store/store.js';
import { nextFitAt } from './fit-policy.js';
import type { Toolgraph } from './toolgraph.js';
import { describeFit, type FitState } from './fit-state.js';

export type { FitState } from './fit-state.js';

/** How long a fit lease holds before another instance may take it (a fitter that died). */
export const FIT_LEASE_MS = 30 * 60_000;

/** Longest delay setTimeout honours. */
const MAX_TIMER_MS = 2_147_483_647;

/** Stored traces read per page for a fit. */
const READ_PAGE = 1_000;

export interface BackgroundFitDeps {
  readonly store: Store;
  readonly engine: Toolgraph;
  /** The settings, or null when the service does not fit by itself. */
  readonly settings: AutoFitSettings | null;
  /** The highest trace seq the engine has applied: a fit reads the traces up to it. */
  readonly appliedSeq: () => number;
  /** Told of weights this instance stored (the shared state notes them). */
  readonly stored: (weights: FittedWeights) => void;
  /** Installs stored weights another instance fitted (as an open or a sync adopts them). */
  readonly adopt: (weights: FittedWeights) => void;
  readonly warn: (message: string) => void;
  /** ms since the epoch (default Date.now); the fit's own duration is measured apart. */
  readonly clock?: () => number;
}

export class BackgroundFit {
  private readonly holder = randomUUID();
  private running: Promise<unknown> | null = null;
  private failedAt: number | null = null;
  private lastTraceAt: number | null = null;
  private fits = 0;
  private failures = 0;
  private totalMs = 0;
  private closed = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private timerAt = 0;
  private readonly clock: () => number;

  constructor(private readonly deps: BackgroundFitDeps) {
    this.clock = deps.clock ?? Date.now;
  }

  /** Traces were applied: notes when, then as note(). */
  applied(): void {
    this.lastTraceAt = this.clock();
    this.note();
  }

  /**
   * Starts a fit when one is due and none is under way, or sets a timer for when the one the
   * traces call for will be due.
   */
  note(): void {
    const { settings, engine } = this.deps;
    if (settings === null || this.closed || this.running !== null) return;
    const at = this.dueAt(engine.fittedWeights, settings);
    if (at === null) return;
    const wait = at - this.clock();
    if (wait > 0) {
      // One timer, for the earliest time asked; when it fires, everything is read again.
      if (this.timer !== null && this.timerAt <= at) return;
      if (this.timer !== null) clearTimeout(this.timer);
      this.timerAt = at;
      this.timer = setTimeout(() => {
        this.timer = null;
        this.note();
      }, Math.min(wait, MAX_TIMER_MS));
      this.timer.unref?.();
      return;
    }
    const job = this.track(this.leased({}, true));
    void job.then(
      () => this.note(),
      (error: unknown) => {
        this.failedAt = this.clock();
        this.failures++;
        if (!this.closed) this.warn(`a background fit failed (${(error as Error).message}); the weights in force stay`);
        this.note();
      },
    );
  }

  /**
   * A fit now on every stored trace applied so far, stored and installed. INVALID_INPUT, storing
   * nothing, when no stored trace succeeded. Waits for a fit under way first.
   */
  async fit(options: FitJobOptions = {}): Promise<FitReport> {
    await this.idle();
    return this.track(this.leased(options, false)).then((report) => {
      if (report === null) throw new ToolgraphError('CONFLICT', 'fit: another instance is fitting this store; try again once its weights are stored');
      return report;
    });
  }

  state(): FitState {
    return describeFit(this.deps.engine.fittedWeights, { running: this.running !== null, fits: this.fits, failures: this.failures, totalMs: this.totalMs });
  }

  /**
   * Starts no more fits. One under way is not waited for: closing the engine stops its worker,
   * and the fit settles as failed, storing nothing (idle() resolves then).
   */
  close(): void {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  /** When the next fit is due (ms; in the past when it is due now), or null: none under way, none called for. */
  nextAt(): number | null {
    const { settings, engine } = this.deps;
    if (this.running !== null) return this.clock();
    if (settings === null || this.closed) return null;
    return this.dueAt(engine.fittedWeights, settings);
  }

  /** Resolves once no fit is under way. */
  async idle(): Promise<void> {
    while (this.running !== null) await this.running.catch(() => {});
  }

  /** When the traces call for a fit after the one behind `weights`, or null while they call for none. */
  private dueAt(weights: FittedWeights, settings: AutoFitSettings): number | null {
    // Fitted weights without an account (an older version's): as if fitted on nothing yet.
    const last = weights.source === 'fitted' ? { traces: weights.fit?.traces ?? 0, at: weights.fit?.fittedAt ?? 0 } : null;
    return nextFitAt({ traces: this.deps.engine.stats().traces, last, failedAt: this.failedAt, lastTraceAt: this.lastTraceAt }, settings);
  }

  private warn(message: string): void {
    this.deps.warn(message);
  }

  private track<T>(job: Promise<T>): Promise<T> {
    const settled = job.finally(() => {
      if (this.running === settled) this.running = null;
    });
    this.running = settled;
    return settled;
  }

  /** The fit under the store's lease; null when another instance holds it (a background fit then waits for its weights). */
  private async leased(options: FitJobOptions, background: boolean): Promise<FitReport | null> {
    const { store } = this.deps;
    if (!(await store.leaseFit(this.holder, FIT_LEASE_MS))) {
      if (background) this.failedAt = this.clock();
      return null;
    }
    try {
      // Another instance may have stored weights since this one last read them (a fit that
      // ended just before this instance saw the traces it read): those are adopted instead,
      // unless they too call for a fit.
      const { settings, engine } = this.deps;
      if (background && settings !== null) {
        // Weights this version cannot read are no reason not to fit: they are replaced.
        const stored = await store.getWeights().catch(() => null);
        if (stored !== null && stored.fit !== undefined && stored.fit.fittedAt !== engine.fittedWeights.fit?.fittedAt) {
          const at = this.dueAt(stored, settings);
          if (at === null || at > this.clock()) {
            this.deps.adopt(stored);
            return null;
          }
        }
      }
      return await this.run(options, background);
    } finally {
      await store.releaseFit(this.holder).catch(() => {});
    }
  }

  private async run(options: FitJobOptions, background: boolean): Promise<FitReport | null> {
    const { store, engine } = this.deps;
    const through = this.deps.appliedSeq();
    const started = performance.now();
    let traces = 0;
    let usable = 0;
    async function* read(): AsyncIterable<readonly Trace[]> {
      let after = 0;
      for (;;) {
        const page = await store.tracesSince(after, READ_PAGE);
        const taken = page.traces.filter((item) => item.seq <= through).map((item) => item.trace);
        traces += taken.length;
        for (const t of taken) if (t.success && t.steps.length > 0) usable++;
        if (taken.length > 0) yield taken;
        if (page.traces.length < READ_PAGE || page.lastSeq >= through) return;
        after = page.lastSeq;
      }
    }
    const report = await engine.fitOffThread(read(), options);
    // Fitting learns from successful traces only: without one it would hand back the prior
    // weights marked fitted, and they would be stored as such.
    if (usable === 0) {
      if (background) {
        this.failedAt = this.clock();
        return null;
      }
      throw new ToolgraphError('INVALID_INPUT', 'fit: nothing to fit: the store has no successful traces');
    }
    if (this.closed && background) return null;
    const ms = Math.round(performance.now() - started);
    const record: FitRecord = {
      traces,
      fittedAt: this.clock(),
      ms,
      kept: { next: report.next.selected, nextNoIntent: report.nextNoIntent.selected, search: report.search.selected },
    };
    const weights: FittedWeights = { ...report.weights, fit: record };
    await store.putWeights(weights);
    engine.adoptFit(report, record);
    this.deps.stored(weights);
    this.fits++;
    this.totalMs += ms;
    this.failedAt = null;
    return report;
  }
}
