/**
 * Builds the model a service answers from, and decides when: the model-building half of the
 * Toolgraph facade. The facade is the ModelSource: it says what the next model is built from
 * (plan) and hears when one is installed.
 *
 * A write marks the model stale (invalidate) and a rebuild is scheduled after the debounce
 * (rebuild-schedule.ts, by the injected Clock); it is built without holding the thread
 * (rebuildInBackground): in stages between which the event loop turns, or, for a graph of at
 * least `offThreadFrom` transitions, with the graph snapshot on a worker thread. One build at a
 * time; a model stale once it lands is rebuilt after the debounce again. Queries never wait for
 * it: they read the installed model. Only a query that finds no model at all, or one planned
 * before tool vectors it waited for arrived, builds one on the spot (current). Which parts are
 * stale is one version vector (model-versions.ts).
 *
 * Verdicts change no snapshot: the installed model takes their per-edge factors at once, O(edges)
 * (takeFeedback); the rest of what it lacks comes with its rebuild.
 */
import type { StoredSignals } from '../graph/graph-codec.js';
import { snapshotInput, type GraphSnapshot } from '../graph/snapshot.js';
import { SnapshotThread } from '../graph/snapshot-thread.js';
import { runStages } from '../graph/stages.js';
import type { TransitionGraph } from '../graph/transition-graph.js';
import { buildEdgeFeedback, type HumanPatternScore } from '../recommend/edge-adjustment.js';
import { buildModel, buildModelText, modelSnapshotOptions, modelStages, type FittedWeights, type ModelOptions, type RecommenderModel } from '../recommend/model.js';
import type { ToolInfo } from '../schema/types.js';
import type { CapabilityPlan } from './capability-catalogue.js';
import type { Clock } from './clock.js';
import { giveWay } from './give-way.js';
import { holdsWrites, staleParts, type ModelPart, type VersionVector } from './model-versions.js';
import { rebuildWaitMs, type LastRebuild } from './rebuild-schedule.js';

/** What the next model is built from (ModelSource.plan). */
export interface ModelPlan {
  readonly options: ModelOptions;
  readonly weights: FittedWeights;
  /** The source's versions when planned. */
  readonly versions: VersionVector;
  /** Restored graph signals this build uses, if any. */
  readonly reuse: StoredSignals | null;
  readonly capabilities: CapabilityPlan;
  /** The verdicts' revision whose human scores the build uses. */
  readonly feedbackRevision: number;
}

export interface ModelSource {
  graph(): TransitionGraph;
  catalog(): ReadonlyMap<string, ToolInfo>;
  /** What the source holds now. */
  versions(): VersionVector;
  /** What the next model is built from; takes the parts restored for one build. */
  plan(previous: RecommenderModel | null): ModelPlan;
  /** A model planned with `plan` was installed. */
  installed(model: RecommenderModel, plan: ModelPlan): void;
  /** The verdicts: their revision and human scores. */
  feedback(): { readonly revision: number; scores(): HumanPatternScore[] };
}

export interface ModelBuilderSettings {
  readonly clock: Clock;
  /** ToolgraphOptions.rebuildDelayMs. */
  readonly delayMs: number;
  /** ToolgraphOptions.offThreadFrom. */
  readonly offThreadFrom: number;
  readonly warn: (message: string) => void;
}

interface Planned extends ModelPlan {
  readonly started: number;
  /** The build's number: it installs its model only if none was planned after it. */
  readonly build: number;
}

export class ModelBuilder {
  private model: RecommenderModel | null = null;
  /** The versions the installed model was built at. */
  private built: VersionVector | null = null;
  private feedbackRevision = -1;
  private timer: unknown = null;
  private lastRebuild: LastRebuild | null = null;
  private builds = 0;
  /** The worker of rebuildInBackground, started by its first build; null after a failure too. */
  private thread: SnapshotThread | null = null;
  private threadFailed = false;
  /** The rebuildInBackground build under way. */
  private flight: Promise<RecommenderModel> | null = null;
  private offThreadBuilds = 0;
  private slicedBuilds = 0;
  private closed = false;

  constructor(
    private readonly source: ModelSource,
    private readonly settings: ModelBuilderSettings,
  ) {}

  /** The installed model, if any (stale or not). */
  get installed(): RecommenderModel | null {
    return this.model;
  }

  /** The parts the installed model lacks; every part without one. */
  staleParts(): ModelPart[] {
    return staleParts(this.model === null ? null : this.built, this.source.versions());
  }

  isStale(): boolean {
    return this.staleParts().length > 0;
  }

  /** The installed model's graph signals were computed for the source's graph as it is. */
  signalsFresh(): boolean {
    return this.model !== null && this.built?.signals === true && this.model.graph.version === this.source.graph().version;
  }

  /** The model to answer a query from. */
  current(): RecommenderModel {
    // Tool vectors an asynchronous embedder just fetched are for the request that waited for
    // them: without the rebuild it was answered by the model that lacked them.
    return this.model !== null && this.built?.toolVectors === this.source.versions().toolVectors ? this.model : this.rebuild();
  }

  /** Builds the model now, on this thread, if it is stale; returns the installed one. */
  rebuild(): RecommenderModel {
    this.cancelTimer();
    if (this.isStale()) {
      const plan = this.plan();
      this.install(buildModel(this.source.graph(), this.source.catalog(), plan.weights, plan.options), plan);
    } else {
      this.takeFeedback();
    }
    return this.model!;
  }

  /**
   * rebuild(), with the graph snapshot built on `thread` while this thread builds the text
   * model: the same model. If the thread fails, `onError` hears why and the model is built here;
   * if another build was installed meanwhile, that one stays.
   */
  async rebuildOffThread(thread: SnapshotThread, onError: (error: Error) => void = () => {}): Promise<RecommenderModel> {
    this.cancelTimer();
    if (!this.isStale()) return this.rebuild();
    const plan = this.plan();
    const graph = this.source.graph();
    const catalog = this.source.catalog();
    const pending = thread.build(snapshotInput(graph), modelSnapshotOptions(plan.options));
    // Built now, before any await: the text and the snapshot's copy see the same graph.
    const text = buildModelText(graph.names, catalog, graph.intents(), plan.options);
    let snapshot: GraphSnapshot | null = null;
    try {
      snapshot = await pending;
    } catch (error) {
      onError(error as Error);
    }
    // Superseded, or closed (which stops the thread) with a model to keep: nothing to build.
    if (this.builds !== plan.build || (snapshot === null && this.closed && this.model !== null)) return this.model!;
    const options = snapshot === null ? plan.options : { ...plan.options, parts: { snapshot, text } };
    this.install(buildModel(this.source.graph(), this.source.catalog(), plan.weights, options), plan);
    if (snapshot !== null) this.offThreadBuilds++;
    return this.model!;
  }

  /**
   * The model rebuilt without holding this thread for the whole build: in stages here for a
   * graph of fewer than `from` transitions, on the builder's own worker thread from it. One at a
   * time: a call while one is under way gets that one. If the thread fails, the build runs here,
   * this and every later one (the warning is given once).
   */
  rebuildInBackground(from = this.settings.offThreadFrom): Promise<RecommenderModel> {
    if (this.flight !== null) return this.flight;
    if (this.closed || !this.isStale()) return Promise.resolve(this.rebuild());
    const flight = this.threadFailed || this.source.graph().edgeCount < from ? this.rebuildInSlices() : this.rebuildOnOwnThread();
    this.flight = flight.finally(() => {
      this.flight = null;
      if (!this.closed && this.isStale()) this.invalidate();
    });
    return this.flight;
  }

  /**
   * Resolves once a model holds every catalogue entry and capability the source had at the call,
   * built in the background: a build already under way was planned before them, so it is awaited
   * and another follows. A failed build is reported and the last model kept: the write stays.
   */
  async modelWithWrites(): Promise<void> {
    const asked = this.source.versions();
    while (!this.closed && !holdsWrites(this.model === null ? null : this.built, asked)) {
      try {
        await this.rebuildInBackground();
      } catch (error) {
        this.settings.warn(`a model rebuild failed: ${(error as Error).message}`);
        return;
      }
    }
  }

  /** The installed model takes the factors of every verdict recorded so far (a stale one too). */
  takeFeedback(): void {
    const feedback = this.source.feedback();
    if (this.model === null || this.feedbackRevision === feedback.revision) return;
    this.model = { ...this.model, feedback: buildEdgeFeedback(this.model.graph, feedback.scores()) };
    this.feedbackRevision = feedback.revision;
  }

  /** The source changed: a rebuild is scheduled, no sooner than rebuild-schedule.ts allows. */
  invalidate(): void {
    if (this.timer !== null) return;
    const { clock, delayMs } = this.settings;
    this.timer = clock.setTimeout(() => {
      this.timer = null;
      // A failed build is reported and the last model kept; the next write tries again.
      this.rebuildInBackground().catch((error: unknown) => this.settings.warn(`a model rebuild failed: ${(error as Error).message}`));
    }, rebuildWaitMs(clock.now(), delayMs, this.lastRebuild));
  }

  /** The source's graph was replaced (a restore): no model until the next build. */
  reset(): void {
    this.cancelTimer();
    this.model = null;
  }

  stats(): { readonly modelVersion: number; readonly rebuildMs: number; readonly offThreadBuilds: number; readonly slicedBuilds: number } {
    return { modelVersion: this.model?.graph.version ?? -1, rebuildMs: this.lastRebuild?.tookMs ?? 0, offThreadBuilds: this.offThreadBuilds, slicedBuilds: this.slicedBuilds };
  }

  /** Stops the pending timer and the worker thread. */
  close(): void {
    this.closed = true;
    this.cancelTimer();
    void this.thread?.close();
    this.thread = null;
  }

  private plan(): Planned {
    const started = this.settings.clock.now();
    return { ...this.source.plan(this.model), started, build: ++this.builds };
  }

  private install(model: RecommenderModel, plan: Planned): void {
    this.model = model;
    this.built = { ...plan.versions, graph: model.graph.version, signals: plan.reuse === null || plan.reuse.version === model.graph.version };
    this.source.installed(model, plan);
    this.feedbackRevision = plan.feedbackRevision;
    // Verdicts recorded while it was built.
    this.takeFeedback();
    const endedAt = this.settings.clock.now();
    this.lastRebuild = { endedAt, tookMs: endedAt - plan.started };
    // Restored communities of another graph version stood in: Louvain runs at the next build.
    if (!this.built.signals) this.invalidate();
  }

  private rebuildOnOwnThread(): Promise<RecommenderModel> {
    const failed = (error: Error): void => {
      if (this.closed) return;
      this.threadFailed = true;
      void this.thread?.close();
      this.thread = null;
      this.settings.warn(`rebuilds now build their graph snapshot on this thread: the snapshot thread failed (${error.message})`);
    };
    try {
      this.thread ??= SnapshotThread.start();
    } catch (error) {
      failed(error as Error);
      return this.rebuildInSlices();
    }
    return this.rebuildOffThread(this.thread, failed);
  }

  /**
   * rebuild(), in stages between which the event loop turns (modelStages): the thread is held
   * for one stage at a time (Louvain the longest; a full co-clustering of capabilities is one),
   * and given back between stages, so commits are acknowledged and queries answered meanwhile.
   * The model is rebuild()'s for the graph as it was when the build began. A build installed
   * meanwhile supersedes this one, which then stops; so does close().
   */
  private async rebuildInSlices(): Promise<RecommenderModel> {
    this.cancelTimer();
    if (!this.isStale()) return this.rebuild();
    const plan = this.plan();
    const stages = modelStages(this.source.graph(), this.source.catalog(), plan.weights, plan.options);
    for (;;) {
      const started = performance.now();
      const step = stages.next();
      if (step.done === true) {
        this.install(step.value, plan);
        this.slicedBuilds++;
        // The installed one: it may have taken verdicts recorded meanwhile.
        return this.model!;
      }
      await giveWay(performance.now() - started);
      if (this.builds !== plan.build) return this.model!;
      // Closed: nothing will ask again. The model is finished only if there is none to return.
      if (this.closed) return this.model ?? runStages(stages);
    }
  }

  private cancelTimer(): void {
    if (this.timer !== null) this.settings.clock.clearTimeout(this.timer);
    this.timer = null;
  }
}
