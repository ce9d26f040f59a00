/**
 * Tool names mean the same at every boundary (fields.ts toolNameSchema): a name made only of
 * invisible characters is blank, bidirectional controls are refused, and hostile-looking names
 * that are only text (`__proto__`) are kept. Each entry point is asked, not the schema alone.
 */
import { describe, expect, it } from 'vitest';
import { parseCatalog, readCatalog } from '../../src/schema/catalog.js';
import { parseCapabilities } from '../../src/schema/capability.js';
import { looseBooleanSchema, toolNameSchema } from '../../src/schema/fields.js';
import { parsePatternFeedback } from '../../src/schema/pattern-requests.js';
import { parseDagRequest, parsePredictRequest } from '../../src/schema/requests.js';
import { parseTrace, parseWorkflowRecord } from '../../src/schema/trace.js';
import { parseTool } from '../../src/schema/tool.js';
import { HOSTILE_NAMES, REFUSED_NAMES, expectError, specExampleTrace } from './_helpers.js';

function workflow(tools: string[]): Record<string, unknown> {
  return { id: 'w:1', domain: 'd', intent: 'i', tools, edges: [], structure: 'chain', ordered: true, split: 'train', source: 's' };
}

function reasoning(name: string): Record<string, any> {
  const trace = specExampleTrace();
  trace['steps'][1].tool.name = name;
  return trace;
}

describe('tool names at every boundary', () => {
  for (const [name, reason] of REFUSED_NAMES) {
    it(`refuses ${JSON.stringify(name)} with INVALID_INPUT naming the field`, () => {
      expectError(() => parseTool({ name }), 'INVALID_INPUT', `parseTool: name: ${reason}`);
      expectError(() => parseCatalog([{ name: 'ok' }, { name }]), 'INVALID_INPUT', `parseCatalog: [1].name: ${reason}`);
      expectError(() => parseTrace({ tools: ['ok', name] }), 'INVALID_INPUT', `parseTrace: tools[1]: ${reason}`);
      expectError(() => parseTrace({ tools: [{ name, ok: false }] }), 'INVALID_INPUT', `parseTrace: tools[0].name: ${reason}`);
      expectError(() => parseTrace(reasoning(name)), 'INVALID_INPUT', `parseTrace: steps[1].tool.name: ${reason}`);
      expectError(() => parseWorkflowRecord(workflow(['ok', name])), 'INVALID_INPUT', `parseWorkflowRecord: tools[1]: ${reason}`);
      expectError(() => parseCapabilities([{ id: 'c', tools: ['ok', name] }]), 'INVALID_INPUT', `[0].tools[1]: ${reason}`);
      expectError(() => parsePredictRequest({ context: [name] }), 'INVALID_INPUT', `context[0]: ${reason}`);
      expectError(() => parseDagRequest({ intent: 'x', context: [name] }), 'INVALID_INPUT', `context[0]: ${reason}`);
      expectError(() => parsePatternFeedback({ pattern: { from: name, to: 'ok' }, decision: 'approve' }), 'INVALID_INPUT', `pattern.from: ${reason}`);
    });
  }

  for (const name of ['__proto__', 'constructor', ...HOSTILE_NAMES]) {
    it(`keeps ${JSON.stringify(name.slice(0, 24))} at every boundary`, () => {
      expect(toolNameSchema.parse(name)).toBe(name);
      expect(parseCatalog([{ name }])[0]!.name).toBe(name);
      expect(parseTrace({ tools: [name] }).steps[0]!.tool).toBe(name);
      expect(parseWorkflowRecord(workflow([name])).tools).toEqual([name]);
      expect(parseCapabilities([{ id: 'c', tools: [name] }])[0]!.tools).toEqual([name]);
      expect(parsePredictRequest({ context: [name] }).context).toEqual([name]);
    });
  }

  it('skips an entry named by invisible or bidi characters in a lenient read, and reads the rest', () => {
    const read = readCatalog([{ name: '\u200b' }, { name: 'file_\u202eeteled' }, { name: '__proto__' }]);
    expect(read.tools.map((t) => t.name)).toEqual(['__proto__']);
    expect(read.skipped).toEqual([
      { index: 0, at: '[0]', reason: '[0].name: must not be blank (white space, zero-width or format characters only)' },
      { index: 1, at: '[1]', reason: '[1].name: must not contain bidirectional control characters (U+202E at 5)' },
    ]);
  });
});

describe('looseBooleanSchema', () => {
  it('reads booleans and the texts "true" / "false" in any case, and refuses other text', () => {
    for (const [input, output] of [[true, true], [false, false], ['true', true], ['FALSE', false], [' True ', true]] as const) {
      expect(looseBooleanSchema.parse(input)).toBe(output);
    }
    for (const input of ['yes', '1', '', 1, null]) expect(looseBooleanSchema.safeParse(input).success, JSON.stringify(input)).toBe(false);
  });
});
