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

/** 'default': the fitted rankers; 'seed': spec 003 as written (section 3 for next tool, 1 for search). */
const profileSchema = z
  .enum(['default', 'seed'])
  .default('default')
  .describe("'default': the fitted ranker; 'seed': spec 003 as written (next tool: section 3; search: section 1, adaptive alpha)");

export const predictRequestSchema = z.strictObject({
  context: contextSchema,
  intent: intentSchema.optional(),
  k: kSchema,
  profile: profileSchema,
});

/** A request as a caller writes it: every field with a default optional, and lists it may keep readonly. */
export type RequestInput<T> = { readonly [K in keyof T]: T[K] extends (infer U)[] | undefined ? readonly U[] | Exclude<T[K], unknown[]> : T[K] };

export type PredictRequestInput = RequestInput<z.input<typeof predictRequestSchema>>;

export const searchRequestSchema = z.strictObject({
  query: limitedString(MAX_INTENT_LENGTH).min(1),
  context: contextSchema,
  k: kSchema,
  profile: profileSchema,
});

export type SearchRequestInput = RequestInput<z.input<typeof searchRequestSchema>>;

/** Largest DAG a request may ask for. */
export const MAX_DAG_NODES = 50;

const thresholdSchema = z.number().min(0).max(1);

/** The DAG request's fields (an MCP tool's input must be a plain object schema). */
export const dagRequestBaseSchema = z.strictObject({
  intent: limitedString(MAX_INTENT_LENGTH).min(1),
  context: contextSchema,
  maxNodes: z.int().min(1).max(MAX_DAG_NODES).default(10),
  expandCapabilities: z.boolean().default(false),
  thresholds: z
    .strictObject({
      reject: thresholdSchema.default(0.5).describe('Confidence below which the status is reject'),
      // No default: a fitted model's `ok` threshold serves (dag/status-threshold.ts), else 0.65.
      warn: thresholdSchema.optional().describe("Confidence below which the status is warn; default the fitted threshold from which held-out workflows reached node-F1 0.8, else 0.65"),
    })
    .default({ reject: 0.5 }),
});

export const dagRequestSchema = dagRequestBaseSchema
  .refine((r) => r.thresholds.warn === undefined || r.thresholds.reject <= r.thresholds.warn, {
    message: 'thresholds.reject must not exceed thresholds.warn',
    path: ['thresholds'],
  });

export type DagRequestInput = RequestInput<z.input<typeof dagRequestSchema>>;

export function parseDagRequest(input: unknown): z.output<typeof dagRequestSchema> {
  return parseWith(dagRequestSchema, input, 'suggestDag');
}

export function parsePredictRequest(input: unknown): z.output<typeof predictRequestSchema> {
  return parseWith(predictRequestSchema, input, 'predictNext');
}

export function parseSearchRequest(input: unknown): z.output<typeof searchRequestSchema> {
  return parseWith(searchRequestSchema, input, 'searchTools');
}
