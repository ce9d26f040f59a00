import { describe, expect, it } from 'vitest';
import { MAX_INTENT_LENGTH, MAX_TOOL_NAME_LENGTH, MAX_TRACE_STEPS } from '../../src/schema/limits.js';
import {
  DEFAULT_ID_PREFIX,
  compactTraceSchema,
  isReasoningTraceShape,
  parseReasoningTrace,
  parseTrace,
  reasoningTraceSchema,
} from '../../src/schema/trace.js';
import { HOSTILE_NAMES, expectError, issuesOf, nestedArrays, specExampleTrace } from './_helpers.js';

const NOW = 1_700_000_000_000;
const now = (): number => NOW;

function withSteps(steps: unknown[]): Record<string, any> {
  return { ...specExampleTrace(), steps };
}

const call = (id: number, name: string) => ({ step_id: id, type: 'tool_call', tool: { name } });
const recovery = (id: number) => ({ step_id: id, type: 'error_recovery', content: 'retrying' });

describe('parseTrace: ReasoningTrace (spec 000)', () => {
  it('normalises the spec example: tool_call names in order, objective, domain, success, time', () => {
    const trace = parseTrace(specExampleTrace());
    expect(trace).toEqual({
      id: 'kp:trace:550e8400-e29b-41d4-a716-446655440000',
      idSource: 'caller',
      intent: 'Review PR #42 for security issues',
      domain: 'code-review',
      steps: [
        { tool: 'github_pr_read', ok: true },
        { tool: 'static_analysis', ok: true },
      ],
      success: true,
      timestamp: Date.parse('2025-03-01T10:00:00.000Z'),
    });
    // Plain JSON: survives a round trip unchanged.
    expect(JSON.parse(JSON.stringify(trace))).toEqual(trace);
  });

  it('accepts the @context URL of spec 001 too (the spec documents disagree)', () => {
    const input = { ...specExampleTrace(), '@context': 'https://openknowledgepulse.org/schema/v1' };
    expect(parseTrace(input).steps).toHaveLength(2);
  });

  it('accepts KnowledgePulse SDK fields the spec example does not show', () => {
    const input = specExampleTrace();
    input['source_skill'] = 'kp:skill:review:1.0.0';
    input['task']['input_schema'] = { type: 'object' };
    input['steps'][1] = {
      ...input['steps'][1],
      tool: { name: 'github_pr_read', mcp_server: 'github' },
      output_summary: 'diff read',
      latency_ms: 12.5,
    };
    input['knowledge_graph_delta'] = { entities: [], relationships: [] };
    input['metadata'] = { ...input['metadata'], agent_id: 'kp:agent:1', framework: 'langgraph', validated_by: [] };
    expect(parseTrace(input).steps.map((s) => s.tool)).toEqual(['github_pr_read', 'static_analysis']);
  });

  it('marks a tool call followed by error_recovery (before the next call) as failed', () => {
    const trace = parseTrace(
      withSteps([
        recovery(0), // before any call: marks nothing
        call(1, 'a'),
        { step_id: 2, type: 'observation', content: 'timeout' },
        recovery(3),
        recovery(4),
        call(5, 'b'),
        call(6, 'c'),
        recovery(7),
      ]),
    );
    expect(trace.steps).toEqual([
      { tool: 'a', ok: false },
      { tool: 'b', ok: true },
      { tool: 'c', ok: false },
    ]);
  });

  it('orders tools by array position, not step_id', () => {
    const trace = parseTrace(withSteps([call(9, 'first'), call(1, 'second')]));
    expect(trace.steps.map((s) => s.tool)).toEqual(['first', 'second']);
  });

  it('gives a trace with no tool call an empty step list', () => {
    const trace = parseTrace(withSteps([{ step_id: 0, type: 'thought', content: 'hmm' }]));
    expect(trace.steps).toEqual([]);
  });

  it('ignores `tool` on steps that are not tool calls', () => {
    const steps = [call(0, 'a'), { step_id: 1, type: 'observation', tool: { name: 'b' } }];
    expect(parseTrace(withSteps(steps)).steps).toEqual([{ tool: 'a', ok: true }]);
  });

  it('carries success: false from metadata', () => {
    const input = specExampleTrace();
    input['metadata']['success'] = false;
    expect(parseTrace(input).success).toBe(false);
  });

  it('reads created_at with a time-zone offset', () => {
    const input = specExampleTrace();
    input['metadata']['created_at'] = '2025-03-01T12:00:00+02:00';
    expect(parseTrace(input).timestamp).toBe(Date.parse('2025-03-01T10:00:00Z'));
  });
});

describe('parseReasoningTrace', () => {
  it('returns the validated trace with defaults for sharing policy fields', () => {
    const input = specExampleTrace();
    delete input['@type'];
    for (const key of ['quality_score', 'visibility', 'privacy_level']) delete input['metadata'][key];
    const trace = parseReasoningTrace(input);
    expect(trace['@type']).toBe('ReasoningTrace');
    expect(trace.metadata.quality_score).toBe(0);
    expect(trace.metadata.visibility).toBe('private');
    expect(trace.metadata.privacy_level).toBe('private');
    expect(trace.outcome.confidence).toBe(0.95);
    expect(trace.steps[1]?.input).toEqual({ pr: 42 });
  });

  it('keeps unknown metadata keys (metadata is the loose extension point)', () => {
    const input = specExampleTrace();
    input['metadata']['team'] = { name: 'sec', size: 3 };
    const trace = parseReasoningTrace(input);
    expect(trace.metadata['team']).toEqual({ name: 'sec', size: 3 });
  });

  it('rejects metadata extras that are not JSON, naming the path', () => {
    const input = specExampleTrace();
    input['metadata']['score'] = Number.NaN;
    expectError(() => parseReasoningTrace(input), 'INVALID_INPUT', 'parseReasoningTrace: metadata.score: NaN');
  });

  it('keeps an own __proto__ key in a tool input without polluting prototypes', () => {
    const input = JSON.parse(
      JSON.stringify(specExampleTrace()).replace('"input":{"pr":42}', '"input":{"__proto__":{"polluted":true}}'),
    );
    const trace = parseReasoningTrace(input);
    const args = trace.steps[1]?.input as Record<string, unknown>;
    expect(Object.keys(args)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('drops an own __proto__ key in metadata (zod never assigns it) without pollution', () => {
    const input = JSON.parse(
      JSON.stringify(specExampleTrace()).replace('"metadata":{', '"metadata":{"__proto__":{"polluted":true},'),
    );
    const trace = parseReasoningTrace(input);
    expect(Object.hasOwn(trace.metadata, '__proto__')).toBe(false);
    expect(Object.getPrototypeOf(trace.metadata)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('is what reasoningTraceSchema parses (one source of truth)', () => {
    expect(parseReasoningTrace(specExampleTrace())).toEqual(reasoningTraceSchema.parse(specExampleTrace()));
  });
});

describe('format detection', () => {
  it('treats @type, or task/steps without tools, as a ReasoningTrace', () => {
    expect(isReasoningTraceShape(specExampleTrace())).toBe(true);
    expect(isReasoningTraceShape({ '@type': 'ToolCallPattern' })).toBe(true);
    expect(isReasoningTraceShape({ task: {}, steps: [] })).toBe(true);
    expect(isReasoningTraceShape({ steps: [] })).toBe(true);
    expect(isReasoningTraceShape({ tools: ['a'], steps: [] })).toBe(false);
    expect(isReasoningTraceShape({ tools: ['a'] })).toBe(false);
    expect(isReasoningTraceShape(null)).toBe(false);
    expect(isReasoningTraceShape([])).toBe(false);
  });

  it('parses a ReasoningTrace without @type (recognised by task and steps)', () => {
    const input = specExampleTrace();
    delete input['@type'];
    delete input['@context'];
    expect(parseTrace(input).steps).toHaveLength(2);
  });

  it('reports a wrong @type as such', () => {
    const input = { ...specExampleTrace(), '@type': 'ToolCallPattern' };
    expectError(() => parseTrace(input), 'INVALID_INPUT', 'parseTrace: @type: expected "ReasoningTrace", received "ToolCallPattern"');
  });

  it('reports a trace with steps but no task as a ReasoningTrace missing its task', () => {
    const input = specExampleTrace();
    delete input['task'];
    expectError(() => parseTrace(input), 'INVALID_INPUT', 'parseTrace: task: missing, expected object');
  });
});

describe('parseTrace: ReasoningTrace errors name the field path', () => {
  const cases: [string, (t: Record<string, any>) => void, string][] = [
    ['tool name not a string', (t) => (t['steps'][3]['tool']['name'] = 42), 'parseTrace: steps[3].tool.name: expected string, received number'],
    ['empty tool name', (t) => (t['steps'][1]['tool']['name'] = ''), 'parseTrace: steps[1].tool.name: must not be empty'],
    ['tool_call without tool', (t) => delete t['steps'][1]['tool'], 'parseTrace: steps[1].tool: missing, a tool_call step names its tool'],
    ['unknown step type', (t) => (t['steps'][0]['type'] = 'plan'), 'parseTrace: steps[0].type: expected "thought" | "tool_call" | "observation" | "error_recovery", received "plan"'],
    ['negative step_id', (t) => (t['steps'][0]['step_id'] = -1), 'parseTrace: steps[0].step_id: expected at least 0'],
    ['fractional step_id', (t) => (t['steps'][0]['step_id'] = 1.5), 'parseTrace: steps[0].step_id: expected int, received number'],
    ['created_at not ISO', (t) => (t['metadata']['created_at'] = 'yesterday'), 'parseTrace: metadata.created_at: expected an ISO 8601 datetime'],
    ['created_at without zone', (t) => (t['metadata']['created_at'] = '2025-03-01T10:00:00'), 'parseTrace: metadata.created_at: expected an ISO 8601 datetime'],
    ['success missing', (t) => delete t['metadata']['success'], 'parseTrace: metadata.success: missing, expected boolean'],
    ['confidence above 1', (t) => (t['outcome']['confidence'] = 1.5), 'parseTrace: outcome.confidence: expected at most 1'],
    ['confidence NaN', (t) => (t['outcome']['confidence'] = Number.NaN), 'parseTrace: outcome.confidence: expected number, received NaN'],
    ['quality_score out of range', (t) => (t['metadata']['quality_score'] = -0.1), 'parseTrace: metadata.quality_score: expected at least 0'],
    ['bad visibility', (t) => (t['metadata']['visibility'] = 'public'), 'parseTrace: metadata.visibility: expected "private" | "org" | "network", received "public"'],
    ['objective not a string', (t) => (t['task']['objective'] = null), 'parseTrace: task.objective: expected string, received null'],
    ['no steps', (t) => (t['steps'] = []), 'parseTrace: steps: expected at least 1 item'],
    ['steps not an array', (t) => (t['steps'] = {}), 'parseTrace: steps: expected array, received object'],
    ['input an array', (t) => (t['steps'][1]['input'] = [1]), 'parseTrace: steps[1].input: expected object, received array'],
    ['input holds NaN', (t) => (t['steps'][1]['input'] = { a: [1, Number.NaN] }), 'parseTrace: steps[1].input.a[1]: NaN is not a JSON number'],
    ['input holds undefined', (t) => (t['steps'][1]['input'] = { a: undefined }), 'parseTrace: steps[1].input.a: expected a JSON value, received undefined'],
    ['input holds a function', (t) => (t['steps'][1]['input'] = { f: () => 1 }), 'parseTrace: steps[1].input.f: expected a JSON value, received function'],
    ['input holds a Date', (t) => (t['steps'][1]['input'] = { d: new Date(0) }), 'parseTrace: steps[1].input.d: expected a JSON value, received a class instance'],
    ['unknown top-level key', (t) => (t['extra'] = 1), 'parseTrace: extra: unknown key'],
    ['unknown step key', (t) => (t['steps'][2]['thoughts'] = 'x'), 'parseTrace: steps[2].thoughts: unknown key'],
    ['unknown tool key', (t) => (t['steps'][1]['tool']['version'] = 2), 'parseTrace: steps[1].tool.version: unknown key'],
    ['unknown task key', (t) => (t['task']['goal'] = 'x'), 'parseTrace: task.goal: unknown key'],
    ['unknown outcome key', (t) => (t['outcome']['score'] = 1), 'parseTrace: outcome.score: unknown key'],
    ['odd unknown key is quoted', (t) => (t['task']['a b'] = 1), 'parseTrace: task["a b"]: unknown key'],
  ];
  for (const [label, mutate, message] of cases) {
    it(label, () => {
      const input = specExampleTrace();
      mutate(input);
      const error = expectError(() => parseTrace(input), 'INVALID_INPUT', message);
      expect(issuesOf(error).length).toBeGreaterThan(0);
    });
  }

  it('lists every issue in details and counts the rest in the message', () => {
    const input = specExampleTrace();
    input['steps'][1]['tool']['name'] = 1;
    input['steps'][3]['tool']['name'] = '';
    input['outcome']['confidence'] = 2;
    input['x'] = 1;
    input['y'] = 2;
    const error = expectError(() => parseTrace(input), 'INVALID_INPUT', '(and 4 more issues)');
    const paths = issuesOf(error).map((i) => i.path).sort();
    expect(paths).toEqual(['outcome.confidence', 'steps[1].tool.name', 'steps[3].tool.name', 'x', 'y']);
    expect((error.details as { total: number }).total).toBe(5);
    // Details are plain JSON and never echo the offending values.
    expect(JSON.stringify(error.details)).not.toContain('"input"');
  });
});

describe('parseTrace: compact', () => {
  it('normalises names and {name, ok} items; ok and success default to true', () => {
    const trace = parseTrace({ tools: ['a', { name: 'b' }, { name: 'c', ok: false }] }, { now });
    expect(trace).toMatchObject({
      intent: '',
      domain: '',
      steps: [
        { tool: 'a', ok: true },
        { tool: 'b', ok: true },
        { tool: 'c', ok: false },
      ],
      success: true,
      timestamp: NOW,
    });
  });

  it('keeps id, intent, domain and success', () => {
    const trace = parseTrace({ id: 't1', intent: 'book a flight', domain: 'travel', tools: ['x'], success: false });
    expect(trace).toMatchObject({ id: 't1', intent: 'book a flight', domain: 'travel', success: false });
  });

  it('reads timestamps given as ISO text or epoch milliseconds', () => {
    const iso = parseTrace({ tools: ['a'], timestamp: '2024-05-01T12:00:00Z' });
    const ms = parseTrace({ tools: ['a'], timestamp: Date.parse('2024-05-01T12:00:00Z') });
    expect(iso.timestamp).toBe(Date.parse('2024-05-01T12:00:00Z'));
    expect(ms.timestamp).toBe(iso.timestamp);
    expect(ms.id).toBe(iso.id); // the same instant is the same trace
  });

  it('uses the clock option only when no timestamp is given', () => {
    expect(parseTrace({ tools: ['a'] }, { now }).timestamp).toBe(NOW);
    expect(parseTrace({ tools: ['a'], timestamp: 5 }, { now }).timestamp).toBe(5);
  });

  it('schema defaults fill what the caller left out', () => {
    expect(compactTraceSchema.parse({ tools: [{ name: 'a' }] })).toEqual({
      intent: '',
      domain: '',
      tools: [{ name: 'a', ok: true }],
      success: true,
    });
  });

  const cases: [string, unknown, string][] = [
    ['null', null, 'parseTrace: expected object, received null'],
    ['a number', 42, 'parseTrace: expected object, received number'],
    ['an array', [], 'parseTrace: expected object, received array'],
    ['no tools', {}, 'parseTrace: tools: missing, expected array'],
    ['empty tools', { tools: [] }, 'parseTrace: tools: expected at least 1 item'],
    ['a numeric tool', { tools: [7] }, 'parseTrace: tools[0]: expected string or object, received number'],
    ['a null tool', { tools: ['a', null] }, 'parseTrace: tools[1]: expected string or object, received null'],
    ['a numeric name', { tools: [{ name: 5 }] }, 'parseTrace: tools[0].name: expected string, received number'],
    ['a string ok', { tools: [{ name: 'a', ok: 'yes' }] }, 'parseTrace: tools[0].ok: expected boolean, received string'],
    ['an unknown item key', { tools: [{ name: 'a', status: 'ok' }] }, 'parseTrace: tools[0].status: unknown key'],
    ['an unknown key', { tools: ['a'], agent: 'x' }, 'parseTrace: agent: unknown key'],
    ['a string success', { tools: ['a'], success: 'true' }, 'parseTrace: success: expected boolean, received string'],
    ['an empty id', { tools: ['a'], id: '' }, 'parseTrace: id: must not be empty'],
    ['a NaN timestamp', { tools: ['a'], timestamp: Number.NaN }, 'parseTrace: timestamp: expected an ISO 8601 datetime string or epoch milliseconds, received NaN'],
    ['an infinite timestamp', { tools: ['a'], timestamp: Number.POSITIVE_INFINITY }, 'parseTrace: timestamp: expected an ISO 8601 datetime string or epoch milliseconds, received Infinity'],
    ['a negative timestamp', { tools: ['a'], timestamp: -1 }, 'parseTrace: timestamp: expected at least 0'],
    ['a timestamp past Date', { tools: ['a'], timestamp: 8.64e15 + 1 }, 'parseTrace: timestamp: expected at most 8640000000000000'],
    ['a date-only timestamp', { tools: ['a'], timestamp: '2024-05-01' }, 'parseTrace: timestamp: expected an ISO 8601 datetime'],
    ['a boolean timestamp', { tools: ['a'], timestamp: true }, 'parseTrace: timestamp: expected an ISO 8601 datetime string or epoch milliseconds, received boolean'],
  ];
  for (const [label, input, message] of cases) {
    it(`rejects ${label}`, () => {
      expectError(() => parseTrace(input), 'INVALID_INPUT', message);
    });
  }
});

describe('recorded times', () => {
  const now = Date.UTC(2026, 0, 1);
  const clock = { now: () => now };
  const HOUR = 3_600_000;

  it('takes a time up to a day after the clock (skew between hosts), and no later', () => {
    expect(parseTrace({ tools: ['a'], timestamp: now + 23 * HOUR }, clock).timestamp).toBe(now + 23 * HOUR);
    expect(parseTrace({ tools: ['a'], timestamp: now + 24 * HOUR }, clock).timestamp).toBe(now + 24 * HOUR);
    expectError(() => parseTrace({ tools: ['a'], timestamp: now + 24 * HOUR + 1 }, clock), 'INVALID_INPUT', "parseTrace: timestamp: expected a time at most a day after this machine's clock (2026-01-01T00:00:00.000Z)");
    expectError(() => parseTrace({ tools: ['a'], timestamp: '2999-01-01T00:00:00Z' }, clock), 'INVALID_INPUT', 'parseTrace: timestamp: expected a time at most a day');
  });

  it('checks a ReasoningTrace by its creation time', () => {
    const trace = specExampleTrace();
    expect(parseTrace(trace, clock).timestamp).toBe(Date.parse(trace.metadata.created_at));
    const ahead = { ...trace, metadata: { ...trace.metadata, created_at: '2999-01-01T00:00:00Z' } };
    expectError(() => parseTrace(ahead, clock), 'INVALID_INPUT', 'parseTrace: metadata.created_at: expected a time at most a day');
  });
});

describe('generated ids', () => {
  it('are a prefixed content hash, stable across re-ingestion and key order', () => {
    const a = parseTrace({ intent: 'x', tools: ['a', 'b'], success: true });
    const b = parseTrace({ success: true, tools: ['a', 'b'], intent: 'x' });
    expect(a.id).toMatch(new RegExp(`^${DEFAULT_ID_PREFIX}[0-9a-f]{32}$`));
    expect(b.id).toBe(a.id);
  });

  it('do not depend on how a step was written or on defaults being explicit', () => {
    const ids = new Set([
      parseTrace({ tools: ['a'] }).id,
      parseTrace({ tools: [{ name: 'a' }] }).id,
      parseTrace({ tools: [{ name: 'a', ok: true }], success: true, intent: '', domain: '' }).id,
    ]);
    expect(ids.size).toBe(1);
  });

  it('change with any content: tools, order, outcome, intent, time', () => {
    const ids = new Set([
      parseTrace({ tools: ['a', 'b'] }).id,
      parseTrace({ tools: ['b', 'a'] }).id,
      parseTrace({ tools: ['a', { name: 'b', ok: false }] }).id,
      parseTrace({ tools: ['a', 'b'], success: false }).id,
      parseTrace({ tools: ['a', 'b'], intent: 'y' }).id,
      parseTrace({ tools: ['a', 'b'], timestamp: 1 }).id,
    ]);
    expect(ids.size).toBe(6);
  });

  it('do not depend on the clock', () => {
    expect(parseTrace({ tools: ['a'] }, { now: () => 1 }).id).toBe(parseTrace({ tools: ['a'] }, { now: () => 2 }).id);
  });

  it('hash a whole ReasoningTrace, so two runs with the same tools differ', () => {
    const one = specExampleTrace();
    delete one['id'];
    const two = specExampleTrace();
    delete two['id'];
    two['steps'][0]['content'] = 'Another thought';
    expect(parseTrace(one).id).toBe(parseTrace(structuredClone(one)).id);
    expect(parseTrace(one).id).not.toBe(parseTrace(two).id);
  });

  it('say whether the id came from the caller or from the content', () => {
    expect(parseTrace({ id: 'mine', tools: ['a'] }).idSource).toBe('caller');
    expect(parseTrace({ tools: ['a'] }).idSource).toBe('content');
    const rt = specExampleTrace();
    delete rt['id'];
    expect(parseTrace(rt).idSource).toBe('content');
  });

  it('use the idPrefix option', () => {
    expect(parseTrace({ tools: ['a'] }, { idPrefix: 'gw1:' }).id).toMatch(/^gw1:[0-9a-f]{32}$/);
  });
});

describe('hostile input', () => {
  for (const name of HOSTILE_NAMES) {
    it(`round-trips the tool name ${JSON.stringify(name.slice(0, 24))}${name.length > 24 ? '…' : ''}`, () => {
      expect(parseTrace({ tools: [name, { name, ok: false }] }).steps).toEqual([
        { tool: name, ok: true },
        { tool: name, ok: false },
      ]);
      const rt = withSteps([call(0, name)]);
      expect(parseTrace(rt).steps).toEqual([{ tool: name, ok: true }]);
    });
  }

  it('accepts names up to the limit and rejects longer ones with PAYLOAD_TOO_LARGE', () => {
    const atLimit = 'n'.repeat(MAX_TOOL_NAME_LENGTH);
    expect(parseTrace({ tools: [atLimit] }).steps[0]?.tool).toBe(atLimit);
    expectError(
      () => parseTrace({ tools: ['ok', 'n'.repeat(MAX_TOOL_NAME_LENGTH + 1)] }),
      'PAYLOAD_TOO_LARGE',
      `parseTrace: tools[1]: too long: ${MAX_TOOL_NAME_LENGTH + 1} characters, the limit is ${MAX_TOOL_NAME_LENGTH}`,
    );
    expectError(
      () => parseTrace(withSteps([call(0, 'n'.repeat(MAX_TOOL_NAME_LENGTH + 1))])),
      'PAYLOAD_TOO_LARGE',
      'parseTrace: steps[0].tool.name: too long',
    );
  });

  it('rejects empty, blank and control-character names with INVALID_INPUT', () => {
    expectError(() => parseTrace({ tools: [''] }), 'INVALID_INPUT', 'parseTrace: tools[0]: must not be empty');
    expectError(() => parseTrace({ tools: [{ name: '' }] }), 'INVALID_INPUT', 'parseTrace: tools[0].name: must not be empty');
    expectError(() => parseTrace({ tools: ['   '] }), 'INVALID_INPUT', 'parseTrace: tools[0]: must not be blank');
    expectError(() => parseTrace({ tools: ['a\nb'] }), 'INVALID_INPUT', 'tools[0]: must not contain control characters');
    expectError(() => parseTrace({ tools: ['a\u0000'] }), 'INVALID_INPUT', 'tools[0]: must not contain control characters');
    expectError(() => parseTrace({ tools: ['bad\uD800'] }), 'INVALID_INPUT', 'tools[0]: must not contain control characters or unpaired surrogates');
  });

  it('rejects non-string names', () => {
    for (const name of [42, true, null, {}, ['a']]) {
      expectError(() => parseTrace({ tools: [{ name }] }), 'INVALID_INPUT', 'parseTrace: tools[0].name: expected string');
    }
  });

  it('rejects __proto__, constructor and prototype as unknown keys of strict objects, without pollution', () => {
    const input = JSON.parse('{"tools":["a"],"__proto__":{"polluted":true}}');
    expectError(() => parseTrace(input), 'INVALID_INPUT', 'parseTrace: __proto__: unknown key');
    expectError(() => parseTrace({ tools: ['a'], constructor: 1 }), 'INVALID_INPUT', 'parseTrace: constructor: unknown key');
    const rt = JSON.parse(JSON.stringify(specExampleTrace()).replace('"task":{', '"task":{"__proto__":{"polluted":true},'));
    expectError(() => parseTrace(rt), 'INVALID_INPUT', 'parseTrace: task.__proto__: unknown key');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('accepts objects without a prototype', () => {
    const input = Object.assign(Object.create(null) as object, { tools: ['a'] });
    expect(parseTrace(input).steps).toEqual([{ tool: 'a', ok: true }]);
  });

  it('accepts exactly MAX_TRACE_STEPS tools and rejects one more with PAYLOAD_TOO_LARGE', () => {
    const tools = Array.from({ length: MAX_TRACE_STEPS }, (_, i) => `t${i % 7}`);
    expect(parseTrace({ tools }).steps).toHaveLength(MAX_TRACE_STEPS);
    expectError(
      () => parseTrace({ tools: [...tools, 'x'] }),
      'PAYLOAD_TOO_LARGE',
      `parseTrace: tools: too many items: ${MAX_TRACE_STEPS + 1}, the limit is ${MAX_TRACE_STEPS}`,
    );
    const steps = Array.from({ length: MAX_TRACE_STEPS + 1 }, (_, i) => call(i, 'a'));
    expectError(() => parseTrace(withSteps(steps)), 'PAYLOAD_TOO_LARGE', 'parseTrace: steps: too many items');
  });

  it('rejects an intent over MAX_INTENT_LENGTH with PAYLOAD_TOO_LARGE', () => {
    expect(parseTrace({ tools: ['a'], intent: 'i'.repeat(MAX_INTENT_LENGTH) }).intent).toHaveLength(MAX_INTENT_LENGTH);
    expectError(
      () => parseTrace({ tools: ['a'], intent: 'i'.repeat(MAX_INTENT_LENGTH + 1) }),
      'PAYLOAD_TOO_LARGE',
      'parseTrace: intent: too long',
    );
    const rt = specExampleTrace();
    rt['task']['objective'] = 'o'.repeat(MAX_INTENT_LENGTH + 1);
    expectError(() => parseTrace(rt), 'PAYLOAD_TOO_LARGE', 'parseTrace: task.objective: too long');
  });

  it('reports a limit first even when other issues come before it', () => {
    const error = expectError(
      () => parseTrace({ tools: [5, 'n'.repeat(MAX_TOOL_NAME_LENGTH + 1)] }),
      'PAYLOAD_TOO_LARGE',
      'parseTrace: tools[1]: too long',
    );
    expect(issuesOf(error)).toHaveLength(2);
  });

  it('rejects deep nesting with PAYLOAD_TOO_LARGE, naming where, without overflowing the stack', () => {
    const rt = specExampleTrace();
    rt['steps'][1]['input'] = { deep: nestedArrays(200) };
    expectError(() => parseTrace(rt), 'PAYLOAD_TOO_LARGE', 'parseTrace: steps[1].input.deep', 'nesting deeper than 64 levels');
    expectError(() => parseTrace({ tools: ['a'], x: nestedArrays(1_000_000) }), 'PAYLOAD_TOO_LARGE', 'nesting deeper than 64 levels');
    expectError(() => parseTrace(nestedArrays(100_000)), 'PAYLOAD_TOO_LARGE', 'nesting deeper than 64 levels');
  });

  it('rejects a cyclic object as too deep instead of looping', () => {
    const rt = specExampleTrace();
    const args: Record<string, unknown> = {};
    args['self'] = args;
    rt['steps'][1]['input'] = args;
    expectError(() => parseTrace(rt), 'PAYLOAD_TOO_LARGE', 'parseTrace: steps[1].input.self.self', 'cyclic');
  });

  it('accepts the same sub-object shared by several steps', () => {
    const shared = { q: 'same' };
    const steps = [{ ...call(0, 'a'), input: shared }, { ...call(1, 'b'), input: shared }];
    const trace = parseReasoningTrace(withSteps(steps));
    expect(trace.steps.map((s) => s.input)).toEqual([shared, shared]);
  });
});
