/**
 * A workflow session at the gateway (spec 002 mapped onto toolgraph, DESIGN.md "Budget engine"):
 * one agent task, its intent, a plan (the suggested DAG), the steps done and a budget.
 *
 * startSession: the plan (suggestDag, capabilities expanded), the tools a search of the intent
 * ranks first, and the graph's answer for the first step, at no cost.
 *
 * stepSession, for each step the agent reports (tool, success, text):
 *  1. deviation (deviation.ts): the text against the intent, and the graph's view;
 *  2. evaluation: accept when the call succeeded, is on topic, and follows the plan (a pending
 *     step calls that tool) or is the graph's top candidate at or above the threshold; else
 *     reject. An accepted plan step is done and the session moves on;
 *  3. the next step's answer: the graph's next-tool ranking (predictNext: the intent and the
 *     tools called so far), its confidence the top candidate's probability. Below the threshold,
 *     in an adaptive session, a model tier answers when the budget allows (escalation.ts):
 *     its reservation is charged first, and persisted when the caller asks (`reserve`), so the
 *     cap holds even if the process dies during the call; a malformed, late or failed answer
 *     leaves the graph's;
 *  4. the planner's one command (planner.ts), applied to the plan;
 *  5. telemetry of every decision (telemetry.ts).
 *
 * A step never throws for what a model does; it throws only for what the recommender throws.
 */
import type { DagRequestInput, PredictRequestInput, SearchRequestInput } from '../schema/requests.js';
import type { AdaptCommand, StartSessionRequest, StepRequest } from '../schema/session-requests.js';
import { MAX_TRACE_STEPS } from '../schema/limits.js';
import type { DagSuggestion } from '../recommend/dag/suggest-dag.js';
import type { Prediction } from '../recommend/predict-next.js';
import type { SearchResult } from '../recommend/search-tools.js';
import { budgetLevel, centsLeft, type BudgetLevel } from './budget.js';
import { detectTopicDeviation, stepDeviation, type TopicDeviation } from './deviation.js';
import { escalate, type Escalation, type ModelPort } from './escalation.js';
import type { SessionOptions } from './options.js';
import { currentStep, dropTemporary, markDone, planFromDag, stepFor } from './plan.js';
import { apply, checkCommand, decide } from './planner.js';
import { SESSION_STATE_FORMAT, type RankedNext, type SessionBudget, type SessionState } from './session-state.js';
import { TelemetryLog, type TelemetryEvent } from './telemetry.js';
import type { AnswerTier } from './tiers.js';

/** What a session asks of the graph: a ToolgraphService answers it, so does a model in memory. */
export interface Recommender {
  predictNext(request: PredictRequestInput): Promise<Prediction>;
  searchTools(request: SearchRequestInput): Promise<SearchResult>;
  suggestDag(request: DagRequestInput): Promise<DagSuggestion>;
}

export interface EngineDeps {
  readonly recommender: Recommender;
  /** The model tiers; null: none is configured, the graph answers every step. */
  readonly model: ModelPort | null;
  readonly options: SessionOptions;
  readonly now: () => number;
  /** Tool descriptions for a model's prompt. */
  readonly describe?: (tools: readonly string[]) => Promise<ReadonlyMap<string, string>>;
  /** Persists the state with a call's reservation charged, before the call. */
  readonly reserve?: (state: SessionState) => Promise<void>;
}

export interface BudgetView {
  readonly budgetCents: number;
  readonly centsLeft: number;
  readonly centsSpent: number;
  readonly escalations: number;
  readonly maxEscalations: number;
  readonly mode: SessionState['mode'];
  readonly level: BudgetLevel;
}

export interface StepResult {
  readonly evaluation: { readonly result: 'accept' | 'reject'; readonly reason: string; readonly step: string | null };
  readonly deviation: { readonly class: TopicDeviation; readonly matchRatio: number | null; readonly graph: 'covered' | 'uncovered' };
  readonly adaptation: AdaptCommand | null;
  readonly next: readonly RankedNext[];
  readonly escalated: boolean;
  readonly answeredBy: AnswerTier;
  readonly confidence: number;
  readonly budget: BudgetView;
}

export interface Stepped {
  readonly state: SessionState;
  readonly result: StepResult;
  readonly events: readonly TelemetryEvent[];
  /** The model call this step made, for the service's counters. */
  readonly call: Escalation['call'];
}

export function budgetView(state: Pick<SessionState, 'budget' | 'mode'>, options: SessionOptions): BudgetView {
  const b = state.budget;
  return {
    budgetCents: b.budgetCents,
    centsLeft: centsLeft(b),
    centsSpent: b.centsSpent,
    escalations: b.escalations,
    maxEscalations: options.maxEscalations,
    mode: state.mode,
    level: budgetLevel(b, options),
  };
}

/**
 * The tools of a prediction, best first. A tool that starts a capability is answered as that
 * capability, in the tool's place and with the tool's probability: its tool counts.
 */
function ranking(prediction: Prediction, k: number): RankedNext[] {
  const out: RankedNext[] = [];
  for (const item of prediction.items) {
    if (!out.some((o) => o.tool === item.tool)) out.push({ tool: item.tool, score: item.score });
    if (out.length >= k) break;
  }
  return out;
}

export async function startSession(
  id: string,
  request: StartSessionRequest,
  threshold: SessionState['threshold'],
  deps: EngineDeps,
): Promise<{ readonly state: SessionState; readonly events: readonly TelemetryEvent[] }> {
  const { recommender, options } = deps;
  const t = deps.now();
  const [dag, search, prediction] = await Promise.all([
    recommender.suggestDag({ intent: request.intent, maxNodes: options.maxPlanSteps, expandCapabilities: true }),
    recommender.searchTools({ query: request.intent, k: options.intentTools }),
    recommender.predictNext({ context: [], intent: request.intent, k: options.candidates }),
  ]);
  const graphNext = ranking(prediction, options.candidates);
  const budget: SessionBudget = { budgetCents: request.budgetCents ?? options.budgetCents, centsSpent: 0, escalations: 0 };
  const state: SessionState = {
    format: SESSION_STATE_FORMAT,
    id,
    intent: request.intent,
    mode: request.mode,
    createdAt: t,
    updatedAt: t,
    plan: planFromDag(dag),
    intentTools: search.items.map((i) => i.tool),
    steps: [],
    repeats: 0,
    microUsed: 0,
    reask: null,
    graphNext,
    confidence: graphNext[0]?.score ?? 0,
    next: graphNext,
    budget,
    threshold,
    modelCutOff: false,
    turn: 0,
  };
  const log = new TelemetryLog(id, () => t, options.debug);
  log.info('session.start', {
    mode: state.mode,
    plan: state.plan.steps.map((s) => ({ id: s.id, tool: s.tool })),
    planKind: dag.kind,
    budgetCents: budget.budgetCents,
    threshold: threshold.value,
    thresholdSource: threshold.source,
  });
  log.debug('graph.prediction', () => ({ turn: 0, candidates: graphNext, confidence: state.confidence }));
  return { state, events: log.events };
}

export async function stepSession(state: SessionState, request: StepRequest, deps: EngineDeps): Promise<Stepped> {
  const { options, recommender } = deps;
  const t = deps.now();
  const log = new TelemetryLog(state.id, () => t, options.debug);
  const turn = state.turn + 1;
  const { tool, success } = request;
  log.info('engine.turn.start', { turn, tool, success, response: request.response !== undefined });

  // 1. Deviation: the text's class, and whether the graph sees the tool as part of the task.
  const text = request.response === undefined ? null : detectTopicDeviation(request.response, state.intent, options.deviation);
  const planned = stepFor(state.plan, tool);
  const covered = planned !== null || state.intentTools.includes(tool) || state.graphNext.some((n) => n.tool === tool);
  const deviation = stepDeviation(text?.deviation ?? null, covered);

  // 2. Evaluation.
  const graphSureOfIt = state.graphNext[0]?.tool === tool && state.confidence >= state.threshold.value;
  const [result, reason] = !success
    ? (['reject', 'the call failed'] as const)
    : deviation === 'VAGUE'
      ? (['reject', 'the step says too little of the task'] as const)
      : deviation === 'OFF_TOPIC'
        ? (['reject', covered ? "the step's text is off the task" : 'off the plan, and nothing ties the tool to the task'] as const)
        : planned !== null
          ? (['accept', planned.temporary ? 'follows the temporary step' : 'follows the plan'] as const)
          : graphSureOfIt
            ? (['accept', 'the graph was sure of it'] as const)
            : (['reject', 'off the plan, and not a prediction the graph was sure of'] as const);
  const doneStep = result === 'accept' ? planned : null;
  log.info('evaluation.result', { askCode: doneStep?.id ?? planned?.id ?? null, tool, result: result.toUpperCase(), reason, deviation, matchRatio: text?.matchRatio ?? null });
  let plan = doneStep !== null ? markDone(state.plan, doneStep.id) : state.plan;
  if (doneStep !== null) log.info('advancement.accept', { askCode: doneStep.id, tool });
  else log.info('advancement.reject', { askCode: currentStep(state.plan)?.id ?? null, tool, reason });
  plan = dropTemporary(plan);
  const repeats = success ? 0 : state.repeats + 1;
  const steps = [...state.steps, { tool, success, result, step: doneStep?.id ?? null }];

  // 3. The next step's answer: the graph's, or a model tier's below the threshold.
  const prediction = await recommender.predictNext({ context: steps.slice(-MAX_TRACE_STEPS).map((s) => s.tool), intent: state.intent, k: options.candidates });
  const graphNext = ranking(prediction, options.candidates);
  const confidence = graphNext[0]?.score ?? 0;
  log.debug('graph.prediction', () => ({ turn, candidates: graphNext, confidence, threshold: state.threshold.value }));
  const unsure = confidence < state.threshold.value && success;
  const kept: Escalation = { budget: state.budget, next: graphNext, answeredBy: 'graph', escalated: false, modelCommand: null, withoutModel: null, modelCutOff: state.modelCutOff, call: null };
  const e = unsure ? await escalate({ state, plan, steps, graphNext, confidence, turn, at: t, log }, deps) : kept;
  const { budget, answeredBy, escalated, modelCommand, modelCutOff, call } = e;
  // After a failure the retry comes first: the step is repeated, not replaced.
  const next = success ? e.next : [{ tool, score: graphNext.find((n) => n.tool === tool)?.score ?? 0 }, ...graphNext.filter((n) => n.tool !== tool)];

  // 4. The planner's command.
  const missing = text?.missing ?? [];
  const command = decide({
    plan,
    tool,
    failed: !success,
    repeats,
    deviation,
    missing,
    next,
    answeredBy,
    graphSure: confidence >= state.threshold.value,
    modelCommand,
    withoutModel: unsure ? e.withoutModel : null,
    microUsed: state.microUsed,
    limits: options,
  });
  if (modelCommand !== null && command !== modelCommand) {
    const why = checkCommand(modelCommand, plan, options.maxMicroSteps - state.microUsed);
    if (why !== null) log.warn('adaptation.refused', { turn, op: modelCommand.op, source: 'model', why });
  }
  let microUsed = state.microUsed;
  let reask: readonly string[] | null = null;
  let adaptation: AdaptCommand | null = null;
  if (command !== null) {
    const problem = checkCommand(command, plan, options.maxMicroSteps - microUsed);
    if (problem === null) {
      ({ plan, microUsed, reask } = apply(command, plan, microUsed, missing));
      adaptation = command;
      log.info('adaptation.planned', { turn, op: command.op, targetAskCode: command.targetAskCode ?? null, reason: command.reason ?? null, note: command.note ?? null });
    } else {
      log.warn('adaptation.refused', { turn, op: command.op, why: problem });
    }
  }
  const nextState: SessionState = {
    ...state,
    updatedAt: t,
    plan,
    steps,
    repeats: command?.op === 'repeat' ? repeats : 0,
    microUsed,
    reask,
    graphNext,
    confidence,
    next,
    budget,
    modelCutOff,
    turn,
  };
  return {
    state: nextState,
    result: {
      evaluation: { result, reason, step: doneStep?.id ?? null },
      deviation: { class: deviation, matchRatio: text?.matchRatio ?? null, graph: covered ? 'covered' : 'uncovered' },
      adaptation,
      next,
      escalated,
      answeredBy,
      confidence,
      budget: budgetView(nextState, options),
    },
    events: log.events,
    call,
  };
}
