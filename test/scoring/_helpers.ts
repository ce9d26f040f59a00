/**
 * Shared by the test/scoring suites: error assertions, a settable clock and ReasoningTrace
 * builders.
 */
import { expect } from 'vitest';
import { isToolgraphError, type ErrorCode } from '../../src/schema/errors.js';

function check(thrown: unknown, code: ErrorCode, caller: string): void {
  expect(isToolgraphError(thrown), `expected ${caller} to throw a ToolgraphError`).toBe(true);
  if (isToolgraphError(thrown)) {
    expect(thrown.code).toBe(code);
    expect(thrown.message.startsWith(`${caller}: `), thrown.message).toBe(true);
  }
}

/** Asserts that `fn` throws ToolgraphError `code` whose message starts with `caller: `. */
export function expectError(fn: () => unknown, code: ErrorCode, caller: string): void {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  check(thrown, code, caller);
}

/** Asserts that `promise` rejects with ToolgraphError `code` whose message starts with `caller: `. */
export async function expectRejection(promise: Promise<unknown>, code: ErrorCode, caller: string): Promise<void> {
  let thrown: unknown;
  try {
    await promise;
  } catch (error) {
    thrown = error;
  }
  check(thrown, code, caller);
}

/** A clock the test moves by hand. */
export function manualClock(start = 0): { now: () => number; set: (t: number) => void; advance: (ms: number) => void } {
  let t = start;
  return {
    now: () => t,
    set: (value: number) => {
      t = value;
    },
    advance: (ms: number) => {
      t += ms;
    },
  };
}

export type StepType = 'thought' | 'tool_call' | 'observation' | 'error_recovery';

export interface StepSpec {
  readonly type: StepType;
  readonly tool?: string;
  readonly content?: string;
}

export interface TraceSpec {
  readonly domain?: string;
  readonly success?: boolean;
  readonly confidence?: number;
  readonly objective?: string;
  readonly id?: string;
  readonly steps: readonly (StepType | StepSpec)[];
}

/** A valid spec-000 ReasoningTrace (plain JSON, unparsed). tool_call steps get a tool by default. */
export function reasoningTrace(spec: TraceSpec): Record<string, unknown> {
  return {
    '@context': 'https://knowledgepulse.dev/schema/v1',
    '@type': 'ReasoningTrace',
    ...(spec.id === undefined ? {} : { id: spec.id }),
    metadata: {
      created_at: '2025-01-01T00:00:00Z',
      task_domain: spec.domain ?? 'default',
      success: spec.success ?? true,
      quality_score: 0,
      visibility: 'network',
      privacy_level: 'aggregated',
    },
    task: { objective: spec.objective ?? 'an objective' },
    steps: spec.steps.map((s, i) => {
      const step: StepSpec = typeof s === 'string' ? { type: s } : s;
      const tool = step.tool ?? (step.type === 'tool_call' ? `tool${i}` : undefined);
      return {
        step_id: i,
        type: step.type,
        ...(step.content === undefined ? {} : { content: step.content }),
        ...(tool === undefined ? {} : { tool: { name: tool } }),
      };
    }),
    outcome: { result_summary: 'done', confidence: spec.confidence ?? 0.8 },
  };
}
