/**
 * The bounded planner (spec 002, "Planificador Acotado"): at most one AdaptCommand per step,
 * validated with the spec's zod schema (schema/session-requests.ts) and checked against the
 * session before it acts, and acting only within the current step:
 *
 *   repeat        the call failed: retry the current step (at most maxRepeats times; then goto
 *                 the next pending step)
 *   goto          OFF_TOPIC: back to the plan, at its pending step the answer ranks first; or
 *                 the answer (the graph sure of it, or the model's) is a later step of the plan
 *   reask         VAGUE: restate the step, naming the task's words it lacks
 *   (the model's) a command the model returned with its answer, when it checks out
 *   insert_micro  the answer is a tool the plan lacks (a look-up): a temporary step, at most
 *                 maxMicroSteps per session
 *   hint          the graph was unsure and no model answered (deterministic session, degraded
 *                 budget, escalation cap, no endpoint, a failed call): its next-tool hint,
 *                 reason BUDGET_LIMIT when the budget kept the model out
 *
 * in that order of precedence. Pure: decide() picks, apply() changes the plan.
 */
import { adaptCommandSchema, type AdaptCommand } from '../schema/session-requests.js';
import { toolNameSchema } from '../schema/fields.js';
import type { TopicDeviation } from './deviation.js';
import { currentStep, gotoStep, insertMicro, pendingSteps } from './plan.js';
import type { Plan, RankedNext } from './session-state.js';

export interface PlannerInput {
  readonly plan: Plan;
  readonly tool: string;
  readonly failed: boolean;
  /** Consecutive failures of the current step, this one included. */
  readonly repeats: number;
  readonly deviation: TopicDeviation;
  /** VAGUE: the task's words the step's text lacks. */
  readonly missing: readonly string[];
  /** The session's answer for the next step, and who gave it. */
  readonly next: readonly RankedNext[];
  readonly answeredBy: 'graph' | 'cheap' | 'thinker';
  /** The graph's top candidate reached the threshold. */
  readonly graphSure: boolean;
  /** A command that came with the model's answer, already schema-valid. */
  readonly modelCommand: AdaptCommand | null;
  /** Why a wanted escalation was not made, if it was wanted and not made. */
  readonly withoutModel: 'deterministic' | 'degraded' | 'escalations' | 'budget' | 'no-endpoint' | 'failed' | null;
  readonly microUsed: number;
  readonly limits: { readonly maxRepeats: number; readonly maxMicroSteps: number };
}

/** Why `command` cannot act on this plan, or null when it can. */
export function checkCommand(command: AdaptCommand, plan: Plan, microLeft: number): string | null {
  const target = command.targetAskCode;
  const known = target === undefined || plan.steps.some((s) => s.id === target);
  if (!known) return `targetAskCode ${JSON.stringify(target)} is no step of the plan`;
  switch (command.op) {
    case 'goto':
      if (target === undefined) return 'goto needs a targetAskCode';
      return gotoStep(plan, target) === null ? `step ${target} is already done` : null;
    case 'insert_micro':
      if (microLeft <= 0) return 'the session has used all its temporary steps';
      if (target !== undefined && gotoStep(plan, target) === null) return `step ${target} is already done`;
      if (command.note === undefined || !toolNameSchema.safeParse(command.note).success) return "insert_micro's note must be the tool the temporary step calls";
      return null;
    default:
      return null;
  }
}

function command(c: AdaptCommand): AdaptCommand {
  // Every command the planner emits goes through the spec's schema, like the model's.
  return adaptCommandSchema.parse(c);
}

/** The pending plan step whose tool ranks first in `next`, else the current step. */
function stepToResume(plan: Plan, next: readonly RankedNext[]): string | null {
  const pending = pendingSteps(plan).filter((s) => !s.temporary);
  for (const item of next) {
    const step = pending.find((s) => s.tool === item.tool);
    if (step !== undefined) return step.id;
  }
  return currentStep(plan)?.id ?? pending[0]?.id ?? null;
}

export function decide(input: PlannerInput): AdaptCommand | null {
  const { plan, limits } = input;
  const current = currentStep(plan);
  const microLeft = limits.maxMicroSteps - input.microUsed;
  if (input.failed) {
    if (input.repeats <= limits.maxRepeats) {
      return command({
        op: 'repeat',
        ...(current !== null ? { targetAskCode: current.id } : {}),
        note: `${input.tool} failed; retry it (attempt ${input.repeats + 1} of ${limits.maxRepeats + 1})`,
      });
    }
    const onward = pendingSteps(plan).find((s) => s.id !== current?.id && !s.temporary);
    if (onward !== undefined) return command({ op: 'goto', targetAskCode: onward.id, note: `${input.tool} failed ${input.repeats} times; go on with ${onward.tool}` });
  }
  if (input.deviation === 'OFF_TOPIC') {
    const target = stepToResume(plan, input.next);
    if (target !== null) {
      const tool = plan.steps.find((s) => s.id === target)!.tool;
      return command({ op: 'goto', targetAskCode: target, reason: 'OFF_TOPIC', note: `${input.tool} is off the plan and the task does not cover it; back to ${tool}` });
    }
  }
  if (input.deviation === 'VAGUE') {
    const words = input.missing.slice(0, 12);
    return command({ op: 'reask', reason: 'SEM_LOW', note: `restate this step: it says little of the task${words.length > 0 ? ` (missing: ${words.join(', ')})` : ''}` });
  }
  if (input.modelCommand !== null && checkCommand(input.modelCommand, plan, microLeft) === null) {
    return command({ ...input.modelCommand, reason: input.modelCommand.reason ?? 'THINKER_ESCALATION' });
  }
  const answer = input.next[0];
  const fromModel = input.answeredBy !== 'graph';
  if (answer !== undefined && (input.graphSure || fromModel) && answer.tool !== current?.tool) {
    const reason = fromModel ? { reason: 'THINKER_ESCALATION' as const } : {};
    const planned = pendingSteps(plan).find((s) => s.tool === answer.tool && !s.temporary);
    if (planned !== undefined) return command({ op: 'goto', targetAskCode: planned.id, ...reason, note: `next: ${answer.tool}` });
    if (microLeft > 0 && toolNameSchema.safeParse(answer.tool).success) {
      return command({ op: 'insert_micro', ...(current !== null ? { targetAskCode: current.id } : {}), ...reason, note: answer.tool });
    }
  }
  if (input.withoutModel !== null && answer !== undefined) {
    const budgetBound = input.withoutModel === 'degraded' || input.withoutModel === 'escalations' || input.withoutModel === 'budget';
    const planned = pendingSteps(plan).find((s) => s.tool === answer.tool);
    return command({
      op: 'hint',
      ...(planned !== undefined ? { targetAskCode: planned.id } : {}),
      ...(budgetBound ? { reason: 'BUDGET_LIMIT' as const } : {}),
      note: `the graph's best guess for the next tool: ${answer.tool} (p = ${answer.score.toFixed(3)})`,
    });
  }
  return null;
}

export interface Applied {
  readonly plan: Plan;
  readonly microUsed: number;
  readonly reask: readonly string[] | null;
}

/** The session's plan and counters after `c` (checked with checkCommand first). */
export function apply(c: AdaptCommand, plan: Plan, microUsed: number, missing: readonly string[]): Applied {
  switch (c.op) {
    case 'goto':
      return { plan: gotoStep(plan, c.targetAskCode!) ?? plan, microUsed, reask: null };
    case 'insert_micro':
      return { plan: insertMicro(plan, c.note!, `m${microUsed + 1}`, c.targetAskCode ?? plan.current), microUsed: microUsed + 1, reask: null };
    case 'reask':
      return { plan, microUsed, reask: [...missing] };
    case 'repeat':
    case 'hint':
      return { plan, microUsed, reask: null };
  }
}
