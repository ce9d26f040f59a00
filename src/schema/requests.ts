/**
 * Query requests at the public boundary: predictNext and searchTools. Strict objects (an
 * unknown key is a typo the caller wants to hear about), defaults in the schema.
 */
import { z } from 'zod';
import { intentSchema, toolNameSchema } from './fields.js';
import { limitedArray, limitedString, parseWith } from './issues.js';
import { MAX_INTENT_LENGTH, MAX_TRACE_STEPS } from './limits.js';

/** Largest k a query may ask for. */
export const MAX_K = 1_000;

const kSchema = z.int().min(1).max(MAX_K).default(5);
const contextSchema = limitedArray(toolNameSchema, MAX_TRACE_STEPS).default([]);

export const predictRequestSchema = z.strictObject({
  context: contextSchema,
  intent: intentSchema.optional(),
  k: kSchema,
  profile: z.enum(['default', 'seed']).default('default'),
});

export type PredictRequestInput = z.input<typeof predictRequestSchema>;

export const searchRequestSchema = z.strictObject({
  query: limitedString(MAX_INTENT_LENGTH).min(1),
  context: contextSchema,
  k: kSchema,
});

export type SearchRequestInput = z.input<typeof searchRequestSchema>;

export function parsePredictRequest(input: unknown): z.output<typeof predictRequestSchema> {
  return parseWith(predictRequestSchema, input, 'predictNext');
}

export function parseSearchRequest(input: unknown): z.output<typeof searchRequestSchema> {
  return parseWith(searchRequestSchema, input, 'searchTools');
}
