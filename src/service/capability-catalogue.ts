/**
 * The capabilities a service knows: the ones registered by id (setCapabilities) and the ones
 * learned from the traces (learn-capabilities.ts), with the traces' tool sets that give their
 * outcomes (capability-evidence.ts). A collaborator of the Toolgraph facade: it says what the
 * next model's capabilities are built from (plan) and remembers the last full co-clustering, so
 * that rebuilds in between carry its clusters over (recluster-policy.ts).
 *
 * Traces are queued, not learned at ingestion, so a write does not pay for learning: the queue
 * is drained when a model is planned, or at QUEUE_LIMIT traces to bound memory. While a durable
 * open backfills the traces before its snapshot (beginBackfill .. endBackfill), newer traces wait
 * in the queue, so learning sees every trace in the order a full replay would.
 */
import type { CapabilityModel, CapabilityModelInput } from '../recommend/capability-model.js';
import { mergeCapabilities } from '../recommend/capability-model.js';
import { TraceToolSets } from '../recommend/capability-evidence.js';
import { CapabilityLearner, type LearnCapabilitiesOptions } from '../recommend/learn-capabilities.js';
import { canReuseClusters, type LastClustering } from '../recommend/recluster-policy.js';
import { parseCapabilities, type Capability } from '../schema/capability.js';
import { ToolgraphError } from '../schema/errors.js';
import type { Trace } from '../schema/types.js';

/** Queued traces learned at once, between rebuilds, so the queue holds at most this many. */
const QUEUE_LIMIT = 10_000;

/**
 * Share of capabilities that may be new since the last full co-clustering before a rebuild runs
 * one again (ToolgraphOptions.reclusterEveryMs; recluster-policy.ts).
 */
export const RECLUSTER_SHARE = 0.1;

/** What the next model's capabilities are built from (CapabilityCatalogue.plan). */
export interface CapabilityPlan {
  readonly input: CapabilityModelInput;
  /** The registration version it saw. */
  readonly version: number;
  /** Learning was complete: learned capabilities and trace outcomes are in. */
  readonly complete: boolean;
}

export class CapabilityCatalogue {
  private readonly registered = new Map<string, Capability>();
  private registrations = 0;
  private readonly learner: CapabilityLearner | null;
  private readonly traceSets = new TraceToolSets();
  private queue: Trace[] = [];
  private backfilling = false;
  private clustered: LastClustering | null = null;

  /** `learning`: the learner's options, or false for none; `reclusterEveryMs` as ToolgraphOptions'. */
  constructor(
    learning: LearnCapabilitiesOptions | false,
    private readonly reclusterEveryMs: number,
  ) {
    this.learner = learning === false ? null : new CapabilityLearner(learning);
  }

  /** Bumped by every registration: a model built for another version is stale. */
  get version(): number {
    return this.registrations;
  }

  /** No backfill is under way: models may hold learned capabilities and trace outcomes. */
  get learningComplete(): boolean {
    return !this.backfilling;
  }

  get size(): number {
    return this.registered.size;
  }

  /** The registered capability with this id. */
  get(id: string): Capability | undefined {
    return this.registered.get(id);
  }

  /**
   * The parsed capabilities of a setCapabilities request, each naming only tools `known` has:
   * INVALID_INPUT, or UNKNOWN_TOOL naming the first that is not. Registers nothing.
   */
  check(input: unknown, known: (tool: string) => boolean, caller: string): Capability[] {
    const parsed = parseCapabilities(input);
    for (const c of parsed) {
      const unknown = c.tools.find((tool) => !known(tool));
      if (unknown !== undefined) {
        throw new ToolgraphError('UNKNOWN_TOOL', `${caller}: capability ${JSON.stringify(c.id.slice(0, 80))} names tool ${JSON.stringify(unknown.slice(0, 80))}, which neither the catalogue nor a trace has; register it with setTools first`);
      }
    }
    return parsed;
  }

  /** Registers checked capabilities by id (a known id is replaced, in its place); with `replace`, they become the set, in their order. */
  register(capabilities: readonly Capability[], replace = false): number {
    if (replace) this.registered.clear();
    for (const c of capabilities) this.registered.set(c.id, c);
    this.registrations++;
    return this.registered.size;
  }

  /** A trace for learning and outcomes, queued until the next plan. */
  note(trace: Trace): void {
    this.queue.push(trace);
    if (this.queue.length >= QUEUE_LIMIT) this.learnQueued();
  }

  beginBackfill(): void {
    this.backfilling = true;
  }

  /** One page of the traces before a restored snapshot, in store order. */
  backfill(traces: readonly Trace[]): void {
    this.traceSets.add(traces, 0);
    this.learner?.add(traces, 0);
  }

  /** The backfill is over: the queued traces are learned. */
  endBackfill(): void {
    this.backfilling = false;
    this.learnQueued();
  }

  /**
   * What the next model's capabilities are built from: the registered ones, then the learned
   * ones (none while a backfill runs, nor trace outcomes: as before any trace), with `previous`'s
   * clusters carried over when the recluster policy allows. Drains the queue.
   */
  plan(previous: CapabilityModel | null, catalogVersion: number, now: number): CapabilityPlan {
    this.learnQueued();
    const complete = !this.backfilling;
    const learned = this.learner === null || !complete ? [] : this.learner.capabilities();
    const capabilities = mergeCapabilities([...this.registered.values()], learned);
    const reuseClusters =
      previous !== null &&
      canReuseClusters({ last: this.clustered, now, version: this.registrations, capabilities, everyMs: this.reclusterEveryMs, share: RECLUSTER_SHARE });
    return {
      input: { capabilities, traces: complete ? this.traceSets : [], previous, reuseClusters, catalogVersion },
      version: this.registrations,
      complete,
    };
  }

  /** A model planned with `plan` was installed: a full co-clustering is remembered as the last. */
  installed(plan: CapabilityPlan, model: CapabilityModel | null, now: number): void {
    if (plan.input.reuseClusters === true) return;
    this.clustered = { at: now, ids: model?.indexById ?? new Map(), version: plan.version };
  }

  private learnQueued(): void {
    if (this.backfilling || this.queue.length === 0) return;
    this.traceSets.add(this.queue, 0);
    this.learner?.add(this.queue, 0);
    this.queue = [];
  }
}
