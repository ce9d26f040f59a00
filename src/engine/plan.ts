/**
 * A session's plan: the suggested DAG's steps in its topological order, and where the session
 * is. Like the lesson JSON of spec 002, it is the source of truth: its steps never change, only
 * which are done and which one is current; the bounded planner may move to a known step (goto)
 * or put a temporary step before the current one (insert_micro), which lasts until the next
 * reported step. Pure functions; each returns a new plan.
 */
import type { DagSuggestion } from '../recommend/dag/suggest-dag.js';
import type { Plan, PlanStep } from './session-state.js';

/**
 * The plan of a suggested DAG: its tool nodes in order, a capability node as its tools in run
 * order (`n3.1`, `n3.2`, ...: a request asks for expanded ones, this only covers a stray one). A
 * `no-match` suggestion is no plan: its nodes are only the nearest tools.
 */
export function planFromDag(dag: Pick<DagSuggestion, 'kind' | 'nodes' | 'edges'>): Plan {
  if (dag.kind === 'no-match') return { steps: [], edges: [], current: null };
  const steps: PlanStep[] = [];
  const first = new Map<string, string>();
  const last = new Map<string, string>();
  const edges: { from: string; to: string }[] = [];
  for (const node of dag.nodes) {
    const tools = node.kind === 'tool' ? [node.tool] : node.tools;
    const ids = node.kind === 'tool' ? [node.id] : node.tools.map((_, i) => `${node.id}.${i + 1}`);
    ids.forEach((id, i) => {
      steps.push({ id, tool: tools[i]!, done: false, temporary: false });
      if (i > 0) edges.push({ from: ids[i - 1]!, to: id });
    });
    if (ids.length > 0) {
      first.set(node.id, ids[0]!);
      last.set(node.id, ids[ids.length - 1]!);
    }
  }
  for (const e of dag.edges) {
    const from = last.get(e.from);
    const to = first.get(e.to);
    if (from !== undefined && to !== undefined) edges.push({ from, to });
  }
  return { steps, edges, current: steps[0]?.id ?? null };
}

export function currentStep(plan: Plan): PlanStep | null {
  return plan.current === null ? null : (plan.steps.find((s) => s.id === plan.current) ?? null);
}

export function pendingSteps(plan: Plan): PlanStep[] {
  return plan.steps.filter((s) => !s.done);
}

/** The pending step a call of `tool` does: the current one if it calls it, else the first pending one that does. */
export function stepFor(plan: Plan, tool: string): PlanStep | null {
  const current = currentStep(plan);
  if (current !== null && !current.done && current.tool === tool) return current;
  return plan.steps.find((s) => !s.done && s.tool === tool) ?? null;
}

/** The first pending step after `from` in the plan's order, else the first pending one; null when none is left. */
function nextPending(steps: readonly PlanStep[], from: number): string | null {
  for (let i = from + 1; i < steps.length; i++) if (!steps[i]!.done) return steps[i]!.id;
  for (let i = 0; i <= from && i < steps.length; i++) if (!steps[i]!.done) return steps[i]!.id;
  return null;
}

/** `id` done; the session moves on from it when it was the current step (or none is current). */
export function markDone(plan: Plan, id: string): Plan {
  const at = plan.steps.findIndex((s) => s.id === id);
  if (at < 0) return plan;
  const steps = plan.steps.map((s, i) => (i === at ? { ...s, done: true } : s));
  const current = plan.current === id || plan.current === null ? nextPending(steps, at) : plan.current;
  return { ...plan, steps, current };
}

/** The plan at step `id`, or null when it is no pending step of it. */
export function gotoStep(plan: Plan, id: string): Plan | null {
  const step = plan.steps.find((s) => s.id === id);
  return step === undefined || step.done ? null : { ...plan, current: id };
}

/**
 * The plan with a temporary step calling `tool` before step `before` (default the current one;
 * at the end when there is none), now current.
 */
export function insertMicro(plan: Plan, tool: string, id: string, before: string | null = plan.current): Plan {
  const at = before === null ? plan.steps.length : plan.steps.findIndex((s) => s.id === before);
  const steps = [...plan.steps];
  steps.splice(at < 0 ? steps.length : at, 0, { id, tool, done: false, temporary: true });
  return { ...plan, steps, current: id };
}

/**
 * The plan without its temporary steps still pending (a temporary step lasts one turn), the
 * current one back on the plan step it stood before.
 */
export function dropTemporary(plan: Plan): Plan {
  if (!plan.steps.some((s) => s.temporary && !s.done)) return plan;
  const at = plan.steps.findIndex((s) => s.id === plan.current);
  let current = plan.current;
  if (at >= 0 && plan.steps[at]!.temporary && !plan.steps[at]!.done) {
    current = null;
    for (let i = at + 1; i < plan.steps.length && current === null; i++) if (!plan.steps[i]!.done && !plan.steps[i]!.temporary) current = plan.steps[i]!.id;
    current ??= plan.steps.find((s) => !s.done && !s.temporary)?.id ?? null;
  }
  return { ...plan, steps: plan.steps.filter((s) => !(s.temporary && !s.done)), current };
}
