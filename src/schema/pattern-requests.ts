/**
 * Requests about learned patterns at the public boundary: human feedback on a pattern and the
 * pattern listing. A pattern is named by its tools (`{from, to}` for a transition, `{tools:
 * [a, b, c]}` for a second-order pattern) or by the id the facade reported.
 */
import { z } from 'zod';
import { idSchema, recordedTimeSchema, toolNameSchema } from './fields.js';
import { parseWith } from './issues.js';

export const patternTargetSchema = z.union([
  z.strictObject({ from: toolNameSchema, to: toolNameSchema }),
  z.strictObject({ tools: z.array(toolNameSchema).min(2).max(3) }),
  z.strictObject({ id: idSchema }),
]);

export type PatternTarget = z.output<typeof patternTargetSchema>;

export const patternFeedbackSchema = z.strictObject({
  pattern: patternTargetSchema,
  decision: z.enum(['approve', 'reject']),
  /** When the decision was made (epoch ms); default now. */
  at: recordedTimeSchema.optional(),
});

/** The body of `POST /v1/patterns/:id/feedback`: the pattern is the path's id. */
export const patternDecisionSchema = z.strictObject({
  decision: z.enum(['approve', 'reject']),
  at: recordedTimeSchema.optional(),
});

export const patternsRequestSchema = z.strictObject({
  /** Only transitions out of this tool (and registered patterns that start with it). */
  from: toolNameSchema.optional(),
  /** Most observed transitions listed besides the reviewed patterns. */
  limit: z.int().min(0).max(10_000).default(100),
});

export function parsePatternFeedback(input: unknown): z.output<typeof patternFeedbackSchema> {
  return parseWith(patternFeedbackSchema, input, 'patternFeedback');
}

export function parsePatternsRequest(input: unknown): z.output<typeof patternsRequestSchema> {
  return parseWith(patternsRequestSchema, input, 'patterns');
}

export function parsePatternTarget(input: unknown, caller: string): PatternTarget {
  return parseWith(patternTargetSchema, input, caller);
}

export function parsePatternDecision(input: unknown): z.output<typeof patternDecisionSchema> {
  return parseWith(patternDecisionSchema, input, 'patternFeedback');
}
