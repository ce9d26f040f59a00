/**
 * The counts every trace value dimension and rule override reads (spec 000), taken in one pass.
 *
 *   steps           = steps.length
 *   uniqueTypes     = |{ s.type }|                         (of thought, tool_call, observation, error_recovery)
 *   errorRecoveries = |{ s : s.type = 'error_recovery' }|
 *   uniqueTools     = |{ s.tool.name : s has a tool }|     (any step type that names a tool counts,
 *                                                          as in spec 000's `steps.filter(s => s.tool)`)
 *   usesTools       = some step has a tool
 *   singleThought   = steps = 1 and that step is a thought
 *
 * Complexity: O(steps) time, O(distinct tools) space.
 */
import type { ReasoningTrace } from '../schema/trace.js';

export interface TraceStats {
  readonly steps: number;
  readonly uniqueTypes: number;
  readonly errorRecoveries: number;
  readonly uniqueTools: number;
  readonly usesTools: boolean;
  readonly singleThought: boolean;
}

export function traceStats(trace: ReasoningTrace): TraceStats {
  const { steps } = trace;
  const types = new Set<string>();
  const tools = new Set<string>();
  let errorRecoveries = 0;
  for (const step of steps) {
    types.add(step.type);
    if (step.type === 'error_recovery') errorRecoveries++;
    if (step.tool !== undefined) tools.add(step.tool.name);
  }
  return {
    steps: steps.length,
    uniqueTypes: types.size,
    errorRecoveries,
    uniqueTools: tools.size,
    usesTools: tools.size > 0,
    singleThought: steps.length === 1 && steps[0]!.type === 'thought',
  };
}
