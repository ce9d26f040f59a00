/**
 * Capabilities at the boundary: a capability is a named, reusable group of tools (an ordered
 * sequence, or a set when order does not matter), optionally with a description and code.
 * `setCapabilities` accepts an array of them or `{capabilities: [...]}`. Ids are unique within
 * one call; tools within a capability are unique (a repeat is a typo, not a loop).
 */
import { z } from 'zod';
import { ToolgraphError } from './errors.js';
import { idSchema, intentSchema, textSchema, toolNameSchema } from './fields.js';
import { formatPath, limitedArray, parseWith } from './issues.js';
import { assertJsonDepth } from './json.js';
import { MAX_CATALOG_TOOLS, MAX_TRACE_STEPS } from './limits.js';
import { MAX_K } from './requests.js';

/** Id prefix reserved for capabilities learned from traces. */
export const LEARNED_ID_PREFIX = 'learned:';

/** Largest number of capabilities one call may register. */
export const MAX_CAPABILITIES = MAX_CATALOG_TOOLS;

const count = z.int().min(0).max(Number.MAX_SAFE_INTEGER);

export const capabilityInputSchema = z.strictObject({
  id: idSchema,
  description: textSchema.default(''),
  tools: limitedArray(toolNameSchema, MAX_TRACE_STEPS).min(1),
  /** true: the tools run in this order (a sequence); false: an unordered set. */
  ordered: z.boolean().default(true),
  /** Code that runs the capability (spec 003 section 4.5); opaque to toolgraph. */
  code: textSchema.optional(),
  /** Outcomes recorded elsewhere (a store); traces add to them. */
  successes: count.default(0),
  failures: count.default(0),
});

export type CapabilityInput = z.input<typeof capabilityInputSchema>;

const capabilityListSchema = limitedArray(capabilityInputSchema, MAX_CAPABILITIES);
/** What setCapabilities accepts: an array of capabilities or `{capabilities: [...]}`. */
export const capabilityInputListSchema = z.union([capabilityListSchema, z.strictObject({ capabilities: capabilityListSchema })]);

/** A validated capability, registered by a caller or learned from traces. */
export interface Capability {
  readonly id: string;
  readonly description: string;
  /** Distinct member tools; in run order when `ordered`. */
  readonly tools: readonly string[];
  readonly ordered: boolean;
  readonly code?: string;
  readonly source: 'registered' | 'learned';
  /** Successful and failed runs known before the traces are counted (registered) or 0 (learned). */
  readonly successes: number;
  readonly failures: number;
  /** Intents of traces that ran it (learned), searched with the description; may be empty. */
  readonly examples: readonly string[];
}

/**
 * Parses `setCapabilities` input into capabilities (source 'registered'). INVALID_INPUT naming
 * the path for a bad field, a duplicate id, an id with the reserved `learned:` prefix, or a tool
 * listed twice in one capability.
 */
export function parseCapabilities(input: unknown): Capability[] {
  const caller = 'setCapabilities';
  assertJsonDepth(input, caller);
  const parsed = parseWith(capabilityInputListSchema, input, caller);
  const wrapped = !Array.isArray(parsed);
  const list = Array.isArray(parsed) ? parsed : parsed.capabilities;
  const base = wrapped ? ['capabilities'] : [];
  const firstId = new Map<string, number>();
  return list.map((c, index) => {
    const seen = firstId.get(c.id);
    if (seen !== undefined) {
      throw new ToolgraphError('INVALID_INPUT', `${caller}: ${formatPath([...base, index, 'id'])}: duplicate capability id ${JSON.stringify(c.id.slice(0, 80))} (first at ${formatPath([...base, seen])})`);
    }
    firstId.set(c.id, index);
    if (c.id.startsWith(LEARNED_ID_PREFIX)) {
      throw new ToolgraphError('INVALID_INPUT', `${caller}: ${formatPath([...base, index, 'id'])}: the prefix '${LEARNED_ID_PREFIX}' is reserved for learned capabilities`);
    }
    const tools = new Set<string>();
    c.tools.forEach((tool, j) => {
      if (tools.has(tool)) {
        throw new ToolgraphError('INVALID_INPUT', `${caller}: ${formatPath([...base, index, 'tools', j])}: tool ${JSON.stringify(tool.slice(0, 80))} is listed twice`);
      }
      tools.add(tool);
    });
    return {
      id: c.id,
      description: c.description,
      tools: c.tools,
      ordered: c.ordered,
      ...(c.code !== undefined ? { code: c.code } : {}),
      source: 'registered' as const,
      successes: c.successes,
      failures: c.failures,
      examples: [],
    };
  });
}

export const capabilityRequestSchema = z.strictObject({
  context: limitedArray(toolNameSchema, MAX_TRACE_STEPS).default([]),
  intent: intentSchema.optional(),
  k: z.int().min(1).max(MAX_K).default(5),
  /** Structural boost for a full cluster match; 0 turns the spectral signal off. */
  boost: z.number().min(0).max(10).optional(),
});

export type CapabilityRequestInput = z.input<typeof capabilityRequestSchema>;

export function parseCapabilityRequest(input: unknown): z.output<typeof capabilityRequestSchema> {
  return parseWith(capabilityRequestSchema, input, 'rankCapabilities');
}
