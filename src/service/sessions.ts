/**
 * A service's workflow sessions (spec 002; the engine is engine/session.ts): they start, take
 * steps, report their telemetry, expire, and are kept in SessionRows (the store's, so a restart
 * keeps open sessions; or memory). Steps of one session run one at a time here, and a step
 * another instance wrote meanwhile is CONFLICT (the rows' versions). A step that escalates
 * stores its reservation before the model is called, so a session's spend is never more than
 * its budget even across a crash. Telemetry goes to the rows, and to a JSONL file when one is
 * named (`--telemetry FILE`). The model tiers are reached through the configured
 * chat-completions endpoint (TOOLGRAPH_LLM_URL); without one, the graph answers every step.
 */
import { randomUUID } from 'node:crypto';
import { appendFile } from 'node:fs/promises';
import { z } from 'zod';
import { parseWith } from '../schema/issues.js';
import { createChatClient } from '../engine/chat-client.js';
import type { ThresholdCalibration } from '../engine/confidence-threshold.js';
import type { ModelPort } from '../engine/escalation.js';
import { parseSessionOptions, type SessionOptions, type SessionOptionsInput } from '../engine/options.js';
import { readSessionState, type SessionState } from '../engine/session-state.js';
import { budgetView, startSession, stepSession, type BudgetView, type Recommender, type StepResult } from '../engine/session.js';
import { toJsonLines, type TelemetryEvent } from '../engine/telemetry.js';
import { ToolgraphError } from '../schema/errors.js';
import { parseStartSessionRequest, parseStepRequest } from '../schema/session-requests.js';
import type { ToolInfo } from '../schema/types.js';
import type { SessionRows } from '../store/session-rows.js';
import { SerialQueue } from './serial-queue.js';
import { ThresholdKeeper, type CalibrationSource } from './session-threshold.js';
import { DEFAULT_SEED } from '../graph/rng.js';

/** How a service's sessions are set up (openToolgraph's and inMemoryService's `sessions` option). */
export interface SessionServiceOptions {
  /** The engine's settings (engine/options.ts; sessionOptionsFromEnv reads the environment's). */
  readonly options?: SessionOptionsInput;
  /** Appends every telemetry event to this JSONL file. */
  readonly telemetryFile?: string;
  /** The model tiers; default the chat-completions endpoint of `options.model.url`, if any. */
  readonly model?: ModelPort | null;
  /** Epoch ms (default Date.now). */
  readonly now?: () => number;
}

export interface SessionView {
  readonly id: string;
  readonly intent: string;
  readonly plan: {
    readonly nodes: readonly { readonly id: string; readonly tool: string; readonly status: 'pending' | 'done'; readonly temporary: boolean }[];
    readonly edges: readonly { readonly from: string; readonly to: string }[];
    readonly current: string | null;
  };
  readonly budget: BudgetView;
  readonly steps: SessionState['steps'];
  readonly next: SessionState['next'];
  readonly threshold: SessionState['threshold'];
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly expiresAt: string;
}

export interface Session {
  readonly id: string;
  /** The session as of its start or its last step through this handle. */
  view(): SessionView;
  /** Reports a step `{tool, success?, response?}`: its evaluation, deviation, adaptation and the next step's answer. */
  step(input: unknown): Promise<StepResult>;
  telemetry(): Promise<TelemetryEvent[]>;
}

interface TierCounts {
  calls: number;
  failures: number;
  promptTokens: number;
  completionTokens: number;
  cents: number;
}

export interface SessionMetrics {
  readonly started: number;
  readonly steps: number;
  /** Steps whose answer came from the graph, at no cost. */
  readonly graphAnswers: number;
  /** Model calls (escalations) per tier, failed ones included, with their tokens and cents. */
  readonly tiers: Readonly<Record<'cheap' | 'embed' | 'thinker', Readonly<TierCounts>>>;
}

export interface Sessions {
  /** `{intent, mode?, budgetCents?}`: a new session with its plan and budget. */
  startSession(input: unknown): Promise<Session>;
  /** The session with this id; NOT_FOUND when there is none or it expired. */
  session(id: string): Promise<Session>;
  /** session(id).step(input), in one read of the session. */
  step(id: string, input: unknown): Promise<StepResult>;
  /** The session's telemetry events, oldest first; NOT_FOUND as session(). */
  telemetry(id: string): Promise<TelemetryEvent[]>;
  deleteSession(id: string): Promise<{ readonly id: string; readonly deleted: true }>;
  /** Calibrates the escalation threshold now on the service's traces (new sessions use it). */
  calibrate(): Promise<ThresholdCalibration>;
  metrics(): SessionMetrics;
  readonly options: SessionOptions;
  close(): Promise<void>;
}

export interface SessionsDeps {
  readonly recommender: Recommender & { tools(): Promise<readonly ToolInfo[]> };
  readonly rows: SessionRows;
  readonly calibration: CalibrationSource | null;
  readonly seed?: number;
  readonly warn?: (message: string) => void;
}

/** Longest wait between sweeps of expired sessions. */
const SWEEP_MS = 60_000;

export function viewOf(state: SessionState, expiresAt: number, options: SessionOptions): SessionView {
  const iso = (ms: number): string => new Date(ms).toISOString();
  return {
    id: state.id,
    intent: state.intent,
    plan: {
      nodes: state.plan.steps.map((s) => ({ id: s.id, tool: s.tool, status: s.done ? 'done' : 'pending', temporary: s.temporary })),
      edges: state.plan.edges,
      current: state.plan.current,
    },
    budget: budgetView(state, options),
    steps: state.steps,
    next: state.next,
    threshold: state.threshold,
    createdAt: iso(state.createdAt),
    updatedAt: iso(state.updatedAt),
    expiresAt: iso(expiresAt),
  };
}

function zeroCounts(): TierCounts {
  return { calls: 0, failures: 0, promptTokens: 0, completionTokens: 0, cents: 0 };
}

const serviceOptionsSchema = z.strictObject({
  options: z.record(z.string(), z.unknown()).optional(),
  telemetryFile: z.string().min(1).optional(),
  model: z.custom<ModelPort | null>((v) => v === null || (typeof v === 'object' && typeof (v as { ask?: unknown }).ask === 'function'), 'a ModelPort {ask(request)}, or null for none').optional(),
  now: z.custom<() => number>((v) => typeof v === 'function', 'a function () => epoch ms').optional(),
});

export function createSessions(deps: SessionsDeps, input: SessionServiceOptions = {}): Sessions {
  parseWith(serviceOptionsSchema, input, 'sessions');
  const options = parseSessionOptions(input.options ?? {}, 'sessions.options');
  const now = input.now ?? Date.now;
  const warn = deps.warn ?? (() => {});
  const client = options.model.url === undefined ? null : createChatClient(options.model);
  const model: ModelPort | null = input.model !== undefined ? input.model : client === null ? null : { ask: ({ model: name, messages }) => client.complete(name, messages) };
  const keeper = new ThresholdKeeper(options.calibrate ? deps.calibration : null, { targetPrecision: options.targetPrecision, defaultThreshold: options.defaultThreshold, seed: deps.seed ?? DEFAULT_SEED }, warn);
  const queues = new Map<string, { tail: Promise<void>; waiting: number }>();
  const file = new SerialQueue();
  const counts = { started: 0, steps: 0, graphAnswers: 0, tiers: { cheap: zeroCounts(), embed: zeroCounts(), thinker: zeroCounts() } };
  let closed = false;
  const sweep = setInterval(() => {
    void Promise.resolve()
      .then(() => deps.rows.expire(now()))
      .catch((error: unknown) => warn(`deleting expired sessions failed: ${(error as Error).message}`));
  }, Math.min(options.idleMs, SWEEP_MS));
  sweep.unref();

  const describe = async (tools: readonly string[]): Promise<ReadonlyMap<string, string>> => {
    const wanted = new Set(tools);
    const out = new Map<string, string>();
    for (const t of await deps.recommender.tools()) if (wanted.has(t.name)) out.set(t.name, t.description);
    return out;
  };
  const engine = (reserve?: (state: SessionState) => Promise<void>) => ({
    recommender: deps.recommender,
    model,
    options,
    now,
    describe,
    ...(reserve === undefined ? {} : { reserve }),
  });
  const record = (events: readonly TelemetryEvent[]): void => {
    if (input.telemetryFile === undefined || events.length === 0) return;
    const path = input.telemetryFile;
    void file.run(() => appendFile(path, toJsonLines(events))).catch((error: unknown) => warn(`writing telemetry to ${path} failed: ${(error as Error).message}`));
  };
  const assertOpen = (action: string): void => {
    if (closed) throw new ToolgraphError('INTERNAL', `${action}: the service is closed`);
  };
  /** Runs `fn` after the session's steps before it. */
  const queued = <T>(id: string, fn: () => Promise<T>): Promise<T> => {
    let q = queues.get(id);
    if (q === undefined) queues.set(id, (q = { tail: Promise.resolve(), waiting: 0 }));
    const queue = q;
    queue.waiting++;
    const next = queue.tail.then(fn);
    queue.tail = next.then(
      () => {},
      () => {},
    );
    return next.finally(() => {
      if (--queue.waiting === 0 && queues.get(id) === queue) queues.delete(id);
    });
  };
  const load = async (id: string): Promise<{ state: SessionState; version: number; expiresAt: number }> => {
    const stored = await deps.rows.get(id, now());
    if (stored === null) throw new ToolgraphError('NOT_FOUND', `no session ${JSON.stringify(id.slice(0, 100))} (it may have expired)`);
    const state = readSessionState(stored.state, id);
    if ('error' in state) throw new ToolgraphError('INTERNAL', state.error);
    return { state, version: stored.version, expiresAt: stored.expiresAt };
  };
  const step = async (id: string, raw: unknown, onView: (view: SessionView) => void = () => {}): Promise<StepResult> => {
    const request = parseStepRequest(raw);
    return queued(id, async () => {
      assertOpen('step');
      const loaded = await load(id);
      let version = loaded.version;
      const expiresAt = now() + options.idleMs;
      const stepped = await stepSession(
        loaded.state,
        request,
        engine(async (reserved) => {
          version = await deps.rows.update(id, version, reserved, expiresAt, []);
        }),
      );
      await deps.rows.update(id, version, stepped.state, expiresAt, stepped.events);
      counts.steps++;
      if (stepped.call === null) {
        if (stepped.result.answeredBy === 'graph') counts.graphAnswers++;
      } else {
        const c = counts.tiers[stepped.call.tier];
        c.calls++;
        if (!stepped.call.ok) c.failures++;
        c.promptTokens += stepped.call.promptTokens;
        c.completionTokens += stepped.call.completionTokens;
        c.cents += stepped.call.cents;
        if (!stepped.call.ok) counts.graphAnswers++;
      }
      record(stepped.events);
      onView(viewOf(stepped.state, expiresAt, options));
      return stepped.result;
    });
  };
  const telemetry = async (id: string): Promise<TelemetryEvent[]> => {
    await load(id);
    return (await deps.rows.events(id)) as TelemetryEvent[];
  };
  const handle = (initial: SessionState, expires: number): Session => {
    let current = viewOf(initial, expires, options);
    const id = initial.id;
    return {
      id,
      view: () => current,
      step: (raw) => step(id, raw, (view) => (current = view)),
      telemetry: () => telemetry(id),
    };
  };

  return {
    options,
    async startSession(raw) {
      assertOpen('startSession');
      const request = parseStartSessionRequest(raw);
      const threshold = await keeper.threshold();
      const id = randomUUID();
      const { state, events } = await startSession(id, request, threshold, engine());
      const expiresAt = state.createdAt + options.idleMs;
      await deps.rows.create(id, state, expiresAt, events);
      counts.started++;
      record(events);
      return handle(state, expiresAt);
    },
    async session(id) {
      assertOpen('session');
      const loaded = await load(id);
      return handle(loaded.state, loaded.expiresAt);
    },
    async deleteSession(id) {
      assertOpen('deleteSession');
      if (!(await deps.rows.delete(id))) throw new ToolgraphError('NOT_FOUND', `no session ${JSON.stringify(id.slice(0, 100))} (it may have expired)`);
      return { id, deleted: true };
    },
    step: (id, raw) => {
      assertOpen('step');
      return step(id, raw);
    },
    telemetry: (id) => {
      assertOpen('telemetry');
      return telemetry(id);
    },
    calibrate: () => keeper.calibrate(),
    metrics: () => ({ started: counts.started, steps: counts.steps, graphAnswers: counts.graphAnswers, tiers: { cheap: { ...counts.tiers.cheap }, embed: { ...counts.tiers.embed }, thinker: { ...counts.tiers.thinker } } }),
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(sweep);
      await keeper.close();
      await Promise.all([...queues.values()].map((q) => q.tail));
      await file.idle();
    },
  };
}
