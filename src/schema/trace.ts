/**
 * Trace formats accepted at the boundary, and their normalisation into the internal `Trace`.
 *
 * - ReasoningTrace (KnowledgePulse, spec 000): thoughts, tool calls, observations and error
 *   recoveries. The tool sequence is the `tool_call` steps' `tool.name`, in array order (not by
 *   `step_id`); a tool call followed by an `error_recovery` step before the next tool call failed.
 * - Compact: `{tools: ['a', {name: 'b', ok: false}], intent?, ...}` for gateways that only log
 *   which tools ran.
 * - Workflow records: one line of a dataset's workflows.jsonl (see data/README.md).
 *
 * Without an id, a trace gets a content hash so re-ingesting the same trace is idempotent.
 */
import { z } from 'zod';
import { ToolgraphError } from './errors.js';
import {
  idSchema,
  intentSchema,
  isoDatetimeSchema,
  labelSchema,
  textSchema,
  assertNotFuture,
  timestampSchema,
  toEpochMs,
  toolNameSchema,
} from './fields.js';
import { limitedArray, parseWith } from './issues.js';
import { assertJsonDepth, contentHash, jsonObjectSchema, jsonValueSchema } from './json.js';
import { MAX_TRACE_STEPS, MAX_WORKFLOW_EDGES } from './limits.js';
import type { Trace, TraceStep } from './types.js';

// ---------------------------------------------------------------------------------------------
// ReasoningTrace (spec 000)

export const STEP_TYPES = ['thought', 'tool_call', 'observation', 'error_recovery'] as const;

const stepToolSchema = z.strictObject({
  name: toolNameSchema,
  mcp_server: labelSchema.optional(),
});

const reasoningStepSchema = z
  .strictObject({
    step_id: z.number().int().min(0),
    type: z.enum(STEP_TYPES),
    content: textSchema.optional(),
    tool: stepToolSchema.optional(),
    input: jsonObjectSchema.optional(),
    output_summary: textSchema.optional(),
    latency_ms: z.number().min(0).optional(),
  })
  .superRefine((step, ctx) => {
    if (step.type === 'tool_call' && step.tool === undefined) {
      ctx.addIssue({ code: 'custom', path: ['tool'], message: 'missing, a tool_call step names its tool' });
    }
  });

/**
 * Metadata keeps unknown keys (any JSON value), unlike every other object here. It is the
 * format's extension point, shared by all KnowledgePulse unit types and grown between SDK
 * versions (agent_id, framework, validated_by); rejecting a newer field would drop whole traces
 * for data we do not read. The extras stay on the parsed ReasoningTrace and in its content hash.
 *
 * quality_score, visibility and privacy_level are sharing policy, not content: the spec's example
 * always sets them, but we do not need them, so they default. Absent visibility and privacy mean
 * the most restrictive values.
 */
const metadataSchema = z
  .object({
    created_at: isoDatetimeSchema,
    task_domain: labelSchema,
    success: z.boolean(),
    quality_score: z.number().min(0).max(1).default(0),
    visibility: z.enum(['private', 'org', 'network']).default('private'),
    privacy_level: z.enum(['aggregated', 'federated', 'private']).default('private'),
    agent_id: labelSchema.optional(),
    framework: labelSchema.optional(),
    validated_by: limitedArray(labelSchema, MAX_TRACE_STEPS).optional(),
  })
  .catchall(jsonValueSchema);

/**
 * A KnowledgePulse ReasoningTrace. Strict except `metadata` (see above). `@context` is optional
 * and free: the spec's own documents use two different URLs. `@type` defaults to
 * 'ReasoningTrace' so a trace recognised by its `task` and `steps` may leave it out. `id` is
 * optional (content hash). Fields of the KnowledgePulse SDK the spec does not show (source_skill,
 * step output_summary/latency_ms, tool.mcp_server, task.input_schema, knowledge_graph_delta) are
 * accepted so real SDK output validates.
 */
export const reasoningTraceSchema = z.strictObject({
  '@context': labelSchema.optional(),
  '@type': z.literal('ReasoningTrace').default('ReasoningTrace'),
  id: idSchema.optional(),
  source_skill: labelSchema.optional(),
  metadata: metadataSchema,
  task: z.strictObject({
    objective: intentSchema,
    input_schema: jsonObjectSchema.optional(),
  }),
  steps: limitedArray(reasoningStepSchema, MAX_TRACE_STEPS).min(1),
  outcome: z.strictObject({
    result_summary: textSchema,
    confidence: z.number().min(0).max(1),
  }),
  knowledge_graph_delta: jsonObjectSchema.optional(),
});

/** A validated ReasoningTrace, defaults applied: what the value scorer reads. */
export type ReasoningTrace = z.output<typeof reasoningTraceSchema>;
export type ReasoningTraceStep = ReasoningTrace['steps'][number];

// ---------------------------------------------------------------------------------------------
// Compact traces

const compactToolSchema = z.union([
  toolNameSchema,
  z.strictObject({ name: toolNameSchema, ok: z.boolean().default(true) }),
]);

/** `{tools: [name | {name, ok?}], ...}`: the minimum a gateway can log. Strict. */
export const compactTraceSchema = z.strictObject({
  id: idSchema.optional(),
  intent: intentSchema.default(''),
  domain: labelSchema.default(''),
  tools: limitedArray(compactToolSchema, MAX_TRACE_STEPS).min(1),
  success: z.boolean().default(true),
  timestamp: timestampSchema.optional(),
});

export type CompactTrace = z.output<typeof compactTraceSchema>;

// ---------------------------------------------------------------------------------------------
// Dataset workflow records

const toolIndexSchema = z.number().int().min(0);

/**
 * One line of a dataset's workflows.jsonl: the fields the evaluator and the trace replay read.
 * Loose: it is third-party data, and every other key is kept as it is, whatever its type. The
 * format's informational fields (`steps`, `orig_split`, `edges_note`, and `source`, where the
 * record came from) are among those: a dataset that writes `steps` as one text rather than a
 * list is still a dataset. Edge indices must point into `tools`.
 */
export const workflowRecordSchema = z
  .looseObject({
    id: idSchema,
    domain: labelSchema,
    intent: intentSchema,
    tools: limitedArray(toolNameSchema, MAX_TRACE_STEPS).min(1),
    edges: limitedArray(z.tuple([toolIndexSchema, toolIndexSchema]), MAX_WORKFLOW_EDGES),
    structure: z.enum(['single', 'chain', 'dag', 'parallel', 'set']),
    ordered: z.boolean(),
    split: z.enum(['train', 'test']),
  })
  .superRefine((record, ctx) => {
    const n = record.tools.length;
    record.edges.forEach((edge, k) => {
      edge.forEach((index, end) => {
        if (index >= n) {
          ctx.addIssue({
            code: 'custom',
            path: ['edges', k, end],
            message: `index ${index} is out of range: tools has ${n} item${n === 1 ? '' : 's'}`,
          });
        }
      });
    });
  });

export type WorkflowRecord = z.output<typeof workflowRecordSchema>;

// ---------------------------------------------------------------------------------------------
// Parsing and normalisation

export interface ParseTraceOptions {
  /** Clock for traces without a time; defaults to Date.now. */
  readonly now?: () => number;
  /** Prefix of generated ids; defaults to DEFAULT_ID_PREFIX. */
  readonly idPrefix?: string;
}

export const DEFAULT_ID_PREFIX = 'trace:';

/** Hex characters of SHA-256 kept in a generated id: 128 bits, ample against collisions. */
const ID_HASH_CHARS = 32;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * ReasoningTrace when `@type` is present (whatever its value, so a wrong type is reported as
 * such) or when it has `task` or `steps` and no `tools`; otherwise compact.
 */
export function isReasoningTraceShape(input: unknown): boolean {
  if (!isRecord(input)) return false;
  if (Object.hasOwn(input, '@type')) return true;
  if (Object.hasOwn(input, 'tools')) return false;
  return Object.hasOwn(input, 'task') || Object.hasOwn(input, 'steps');
}

/** Validates a ReasoningTrace (spec 000) and returns it with defaults applied. */
export function parseReasoningTrace(input: unknown): ReasoningTrace {
  assertJsonDepth(input, 'parseReasoningTrace');
  return parseWith(reasoningTraceSchema, input, 'parseReasoningTrace');
}

/** Validates one workflows.jsonl record. */
export function parseWorkflowRecord(input: unknown): WorkflowRecord {
  assertJsonDepth(input, 'parseWorkflowRecord');
  return parseWith(workflowRecordSchema, input, 'parseWorkflowRecord');
}

function generatedId(prefix: string, content: unknown): string {
  return `${prefix}${contentHash(content).slice(0, ID_HASH_CHARS)}`;
}

/** The tool sequence of a ReasoningTrace, with `ok: false` on calls an error recovery followed. */
export function reasoningTraceSteps(trace: ReasoningTrace): TraceStep[] {
  const steps: { tool: string; ok: boolean }[] = [];
  let last: { tool: string; ok: boolean } | undefined;
  for (const step of trace.steps) {
    if (step.type === 'tool_call' && step.tool !== undefined) {
      last = { tool: step.tool.name, ok: true };
      steps.push(last);
    } else if (step.type === 'error_recovery' && last !== undefined) {
      last.ok = false;
    }
  }
  return steps;
}

function fromReasoningTrace(trace: ReasoningTrace, options: ParseTraceOptions): Trace {
  const { id, ...content } = trace;
  return {
    id: id ?? generatedId(options.idPrefix ?? DEFAULT_ID_PREFIX, { format: 'reasoning-trace', trace: content }),
    idSource: id === undefined ? 'content' : 'caller',
    intent: trace.task.objective,
    domain: trace.metadata.task_domain,
    steps: reasoningTraceSteps(trace),
    success: trace.metadata.success,
    timestamp: toEpochMs(trace.metadata.created_at),
  };
}

function fromCompact(trace: CompactTrace, options: ParseTraceOptions): Trace {
  const steps = trace.tools.map((item) =>
    typeof item === 'string' ? { tool: item, ok: true } : { tool: item.name, ok: item.ok },
  );
  const at = trace.timestamp === undefined ? undefined : toEpochMs(trace.timestamp);
  // Hash the normalised content, so `'a'` and `{name: 'a', ok: true}`, or a time given as ISO
  // text and as epoch ms, are the same trace. Without id and timestamp, two runs of the same
  // tools for the same intent get the same id; `idSource: 'content'` tells the ingester that
  // such a repeat is a second observation, not a retry.
  const content = {
    format: 'compact',
    intent: trace.intent,
    domain: trace.domain,
    steps,
    success: trace.success,
    timestamp: at ?? null,
  };
  return {
    id: trace.id ?? generatedId(options.idPrefix ?? DEFAULT_ID_PREFIX, content),
    idSource: trace.id === undefined ? 'content' : 'caller',
    intent: trace.intent,
    domain: trace.domain,
    steps,
    success: trace.success,
    timestamp: at ?? (options.now ?? Date.now)(),
  };
}

/**
 * Detects the format (see isReasoningTraceShape), validates and normalises one trace.
 * Throws ToolgraphError: INVALID_INPUT naming the field path (a time more than a day after this
 * machine's clock among them: assertNotFuture), PAYLOAD_TOO_LARGE past a limit.
 */
export function parseTrace(input: unknown, options: ParseTraceOptions = {}): Trace {
  assertJsonDepth(input, 'parseTrace');
  const reasoning = isReasoningTraceShape(input);
  const trace = reasoning
    ? fromReasoningTrace(parseWith(reasoningTraceSchema, input, 'parseTrace'), options)
    : fromCompact(parseWith(compactTraceSchema, input, 'parseTrace'), options);
  assertNotFuture(trace.timestamp, (options.now ?? Date.now)(), reasoning ? 'parseTrace: metadata.created_at' : 'parseTrace: timestamp');
  return trace;
}

/**
 * A dataset workflow replayed as one successful trace: every step ok, in `tools` order, timed
 * now. Records carry no time, and a fixed old time would let time decay erase the whole training
 * set. One argument only, so `records.map(workflowToTrace)` is safe; use workflowToTraceAt for a
 * reproducible time.
 */
export function workflowToTrace(record: WorkflowRecord): Trace {
  return workflowToTraceAt(record, Date.now());
}

/** workflowToTrace with the replay time given (epoch ms). */
export function workflowToTraceAt(record: WorkflowRecord, timestamp: number): Trace {
  return {
    id: record.id,
    intent: record.intent,
    domain: record.domain,
    steps: record.tools.map((tool) => ({ tool, ok: true })),
    success: true,
    timestamp,
  };
}

/** An error's `details` with each issue's path under `traces[i]`, as its message is. */
function inTrace(details: unknown, i: number): unknown {
  if (typeof details !== 'object' || details === null || !Array.isArray((details as { issues?: unknown }).issues)) return details;
  const issues = (details as { issues: { path?: unknown }[] }).issues.map((issue) => ({
    ...issue,
    path: typeof issue.path !== 'string' || issue.path === '' ? `traces[${i}]` : issue.path.startsWith('[') ? `traces[${i}]${issue.path}` : `traces[${i}].${issue.path}`,
  }));
  return { ...details, issues };
}

/**
 * One trace or an array of them, each validated by parseTrace before any is used, so a batch is
 * all or nothing; in a batch the error names the failing index (`traces[3]: ...`).
 */
export function parseTraceBatch(input: unknown): Trace[] {
  const items: readonly unknown[] = Array.isArray(input) ? input : [input];
  return items.map((item, i) => {
    try {
      return parseTrace(item);
    } catch (error) {
      if (error instanceof ToolgraphError && items.length > 1) {
        throw new ToolgraphError(error.code, `traces[${i}]: ${error.message}`, inTrace(error.details, i));
      }
      throw error;
    }
  });
}
