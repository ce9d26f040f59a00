import { describe, expect, it } from 'vitest';
import { parseJsonl } from '../../src/schema/jsonl.js';
import {
  parseWorkflowRecord,
  workflowRecordSchema,
  workflowToTrace,
  workflowToTraceAt,
} from '../../src/schema/trace.js';
import { expectError } from './_helpers.js';

/** A line of data/ultratool/workflows.jsonl (README format), shortened. */
function record(): Record<string, any> {
  return {
    id: 'ultratool:3186',
    domain: 'Agenda',
    intent: 'Cancel the 8:00 alarm and move the daily alarm to 6:30.',
    tools: ['clock_alarm_cancel', 'clock_alarm_change'],
    edges: [[0, 1]],
    structure: 'chain',
    ordered: true,
    split: 'test',
    source: 'WxxShirley/GNN4TaskPlan:data/ultratool/data.json',
    steps: ['Step 1 Call clock_alarm_cancel', 'Step 2 Call clock_alarm_change'],
  };
}

describe('parseWorkflowRecord', () => {
  it('accepts a README-format record and keeps informational fields', () => {
    const parsed = parseWorkflowRecord(record());
    expect(parsed).toEqual(record());
  });

  it('keeps unknown keys: third-party data is loose', () => {
    const parsed = parseWorkflowRecord({ ...record(), orig_split: 'dev', edges_note: 'n', upstream_score: 3 });
    expect(parsed['upstream_score']).toBe(3);
    expect(parsed.orig_split).toBe('dev');
  });

  it('accepts sets without edges and repeated tools', () => {
    const parsed = parseWorkflowRecord({ ...record(), tools: ['a', 'a', 'b'], edges: [], structure: 'set', ordered: false });
    expect(parsed.tools).toEqual(['a', 'a', 'b']);
  });

  const cases: [string, (r: Record<string, any>) => void, string][] = [
    ['missing id', (r) => delete r['id'], 'parseWorkflowRecord: id: missing, expected string'],
    ['missing intent', (r) => delete r['intent'], 'parseWorkflowRecord: intent: missing, expected string'],
    ['no tools', (r) => (r['tools'] = []), 'parseWorkflowRecord: tools: expected at least 1 item'],
    ['an empty tool name', (r) => (r['tools'][1] = ''), 'parseWorkflowRecord: tools[1]: must not be empty'],
    ['a numeric tool', (r) => (r['tools'][0] = 3), 'parseWorkflowRecord: tools[0]: expected string, received number'],
    ['an edge out of range', (r) => (r['edges'] = [[0, 5]]), 'parseWorkflowRecord: edges[0][1]: index 5 is out of range: tools has 2 items'],
    ['an edge of three', (r) => (r['edges'] = [[0, 1, 1]]), 'parseWorkflowRecord: edges[0]: expected at most 2 items'],
    ['a negative index', (r) => (r['edges'] = [[-1, 1]]), 'parseWorkflowRecord: edges[0][0]: expected at least 0'],
    ['a fractional index', (r) => (r['edges'] = [[0.5, 1]]), 'parseWorkflowRecord: edges[0][0]: expected int'],
    ['an unknown structure', (r) => (r['structure'] = 'tree'), 'parseWorkflowRecord: structure: expected "single" | "chain" | "dag" | "parallel" | "set", received "tree"'],
    ['an unknown split', (r) => (r['split'] = 'dev'), 'parseWorkflowRecord: split: expected "train" | "test", received "dev"'],
    ['a string ordered', (r) => (r['ordered'] = 'true'), 'parseWorkflowRecord: ordered: expected boolean, received string'],
  ];
  for (const [label, mutate, message] of cases) {
    it(`rejects ${label}`, () => {
      const input = record();
      mutate(input);
      expectError(() => parseWorkflowRecord(input), 'INVALID_INPUT', message);
    });
  }

  // data/README.md: "Other fields (steps, orig_split, edges_note) are informational". A public
  // dataset writes `steps` as one text; the evaluator reads none of them, nor `source`.
  it('keeps informational fields as they are, whatever their type', () => {
    const informational: [string, unknown][] = [
      ['steps', 'Step 1 Call clock_alarm_cancel; Step 2 Call clock_alarm_change'],
      ['steps', [1, { call: 'x' }]],
      ['orig_split', 7],
      ['edges_note', ['a', 'b']],
      ['source', null],
      ['desc', { nested: [true] }],
    ];
    for (const [key, value] of informational) {
      const input = record();
      input[key] = value;
      expect(parseWorkflowRecord(input)[key], key).toEqual(value);
    }
    const withoutSource = record();
    delete withoutSource['source'];
    expect(parseWorkflowRecord(withoutSource).id).toBe(record()['id']);
  });

  it('is workflowRecordSchema', () => {
    expect(workflowRecordSchema.safeParse(record()).success).toBe(true);
  });
});

describe('workflowToTrace', () => {
  it('replays a record as one successful trace, every step ok, in tools order', () => {
    const trace = workflowToTraceAt(parseWorkflowRecord({ ...record(), tools: ['a', 'b', 'a'], edges: [] }), 42);
    expect(trace).toEqual({
      id: 'ultratool:3186',
      intent: record()['intent'],
      domain: 'Agenda',
      steps: [
        { tool: 'a', ok: true },
        { tool: 'b', ok: true },
        { tool: 'a', ok: true },
      ],
      success: true,
      timestamp: 42,
    });
  });

  it('times the replay now, and is safe to pass to Array.prototype.map', () => {
    const before = Date.now();
    const traces = [parseWorkflowRecord(record())].map(workflowToTrace);
    expect(traces[0]?.timestamp).toBeGreaterThanOrEqual(before);
    expect(traces[0]?.timestamp).toBeLessThanOrEqual(Date.now());
  });

  it('composes with parseJsonl', () => {
    const text = `${JSON.stringify(record())}\n\n${JSON.stringify({ ...record(), id: 'ultratool:2' })}\n`;
    const ids = parseJsonl(text, parseWorkflowRecord, 'w.jsonl').map(workflowToTrace).map((t) => t.id);
    expect(ids).toEqual(['ultratool:3186', 'ultratool:2']);
  });
});
