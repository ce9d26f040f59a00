import { describe, expect, it } from 'vitest';
import { MAX_CATALOG_TOOLS, MAX_TOOL_NAME_LENGTH, MAX_TOOL_PARAMS } from '../../src/schema/limits.js';
import { parseCatalog } from '../../src/schema/catalog.js';
import { catalogToolSchema, mcpToolSchema, parseTool } from '../../src/schema/tool.js';
import { HOSTILE_NAMES, REFUSED_NAMES, expectError, issuesOf, nestedArrays } from './_helpers.js';

/** A dataset line as data/ultratool/tools.jsonl writes it: `required` null, domain an array. */
const ultratoolLine = {
  name: 'order_tracking',
  description: 'Order Tracking Tool',
  params: [
    { name: 'orderNumber', type: 'string', description: 'Order Number', required: null },
    { name: 'customerID', type: 'string', description: null, required: true },
  ],
  domain: ['Tracking'],
  desc_source: 'UltraTool test.json',
};

/** An MCP tools/list entry (2025-06-18 revision fields). */
const mcpEntry = {
  name: 'get_weather',
  title: 'Weather',
  description: 'Current weather for a city',
  inputSchema: {
    type: 'object',
    properties: {
      city: { type: 'string', description: 'City name' },
      units: { type: ['string', 'null'], enum: ['metric', 'imperial'] },
      raw: true,
    },
    required: ['city'],
    additionalProperties: false,
  },
  outputSchema: { type: 'object', properties: { temp: { type: 'number' } } },
  annotations: { readOnlyHint: true, openWorldHint: true },
  icons: [{ src: 'https://example.com/w.png' }],
  _meta: { 'example.com/owner': 'team-a' },
};

describe('parseTool: dataset lines', () => {
  it('normalises null type/description/required to empty/empty/false and drops extras', () => {
    expect(parseTool(ultratoolLine)).toEqual({
      name: 'order_tracking',
      description: 'Order Tracking Tool',
      params: [
        { name: 'orderNumber', type: 'string', description: 'Order Number', required: false },
        { name: 'customerID', type: 'string', description: '', required: true },
      ],
    });
  });

  it('accepts a bare name (metatool lines have no params)', () => {
    expect(parseTool({ name: 'calculator' })).toEqual({ name: 'calculator', description: '', params: [] });
    expect(parseTool({ name: 'c', description: null, params: [] }).description).toBe('');
  });

  it('accepts domain as a string or a list, server and category, and unknown keys', () => {
    const line = { name: 'x', domain: 'Finance', server: 's', category: 'c', output_parameters: ['y'] };
    expect(catalogToolSchema.parse(line)).toMatchObject(line);
    expect(parseTool({ name: 'x', domain: ['a', 'b'] }).name).toBe('x');
  });

  // A published registry of MCP tools writes category-like fields as lists; toolgraph reads none
  // of them, so whatever they hold is no reason to refuse the tool.
  it('ignores the fields it does not read, whatever they hold', () => {
    for (const extra of [{ category: ['files', 'search'] }, { domain: 5 }, { domain: [5, null] }, { server: { name: 's' } }, { tags: 'a,b' }, { tags: [['x']] }]) {
      expect(parseTool({ name: 'x', ...extra }), JSON.stringify(extra)).toEqual({ name: 'x', description: '', params: [] });
    }
  });

  it('reads a parameter type written as a union, a JSON Schema or null, and required written as text', () => {
    const tool = parseTool({
      name: 'x',
      description: null,
      params: [
        { name: 'a', type: ['string', 'null'], required: 'true' },
        { name: 'b', type: { type: 'integer' }, required: 'False' },
        { name: 'c', type: { anyOf: [{ type: 'string' }, { type: 'null' }] }, required: ' TRUE ' },
        { name: 'd', type: null, description: null, required: null },
        { name: 'e', type: 7 },
      ],
    });
    expect(tool.params.map((p) => [p.name, p.type, p.required])).toEqual([
      ['a', 'string | null', true],
      ['b', 'integer', false],
      ['c', 'string | null', true],
      ['d', '', false],
      ['e', '', false],
    ]);
    expect(tool.description).toBe('');
  });

  const cases: [string, unknown, string][] = [
    ['a missing name', { description: 'd' }, 'parseTool: name: missing, expected string'],
    ['an empty name', { name: '' }, 'parseTool: name: must not be empty'],
    ['a numeric name', { name: 1 }, 'parseTool: name: expected string, received number'],
    ['a numeric description', { name: 'a', description: 3 }, 'parseTool: description: expected string, received number'],
    ['params not an array', { name: 'a', params: {} }, 'parseTool: params: expected array, received object'],
    ['a param without name', { name: 'a', params: [{ type: 'string' }] }, 'parseTool: params[0].name: missing, expected string'],
    ['a string required', { name: 'a', params: [{ name: 'p', required: 'yes' }] }, 'parseTool: params[0].required: expected boolean, received string'],
    ['a zero-width name', { name: '\u200b' }, 'parseTool: name: must not be blank'],
    ['a name with a bidi override', { name: 'file_\u202eeteled' }, 'parseTool: name: must not contain bidirectional control characters (U+202E at 5)'],
    ['null', null, 'parseTool: expected object, received null'],
    ['a string', 'tool', 'parseTool: expected object, received string'],
  ];
  for (const [label, input, message] of cases) {
    it(`rejects ${label}`, () => {
      expectError(() => parseTool(input), 'INVALID_INPUT', message);
    });
  }
});

describe('parseTool: MCP tools/list entries', () => {
  it('reads params from inputSchema.properties and required from inputSchema.required', () => {
    expect(parseTool(mcpEntry)).toEqual({
      name: 'get_weather',
      description: 'Current weather for a city',
      params: [
        { name: 'city', type: 'string', description: 'City name', required: true },
        { name: 'units', type: 'string | null', description: '', required: false },
        { name: 'raw', type: '', description: '', required: false },
      ],
      outputs: ['temp'],
    });
  });

  it('reads outputs from outputSchema.properties (own keys, hostile names kept) and from output_parameters', () => {
    const mcp = JSON.parse(
      '{"name":"t","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"__proto__":{"type":"string"},"geoId":{"type":"string"}}}}',
    );
    expect(parseTool(mcp).outputs).toEqual(['__proto__', 'geoId']);
    expect(parseTool({ name: 'a', output_parameters: ['skyId', 'entityId'] }).outputs).toEqual(['skyId', 'entityId']);
    expect(parseTool({ name: 'a', output_parameters: null })).toEqual({ name: 'a', description: '', params: [] });
    expectError(() => parseTool({ name: 'a', output_parameters: [3] }), 'INVALID_INPUT', 'parseTool: output_parameters[0]: expected string, received number');
  });

  it('reads a ToolInfo back as itself, outputs included (a catalogue read from the service or the store)', () => {
    const mcp = JSON.parse(
      '{"name":"t","inputSchema":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]},"outputSchema":{"type":"object","properties":{"__proto__":{"type":"string"},"geoId":{"type":"string"}}}}',
    );
    for (const input of [mcp, { name: 'a', description: 'd', params: [{ name: 'q', type: 'string', description: '', required: true }], output_parameters: ['skyId'] }]) {
      const once = parseTool(input);
      expect(once.outputs?.length).toBeGreaterThan(0);
      expect(parseTool(JSON.parse(JSON.stringify(once)))).toEqual(once);
    }
    // Both names at once (a line written by hand): every field once, in order.
    expect(parseTool({ name: 'a', output_parameters: ['x', 'y'], outputs: ['y', 'z'] }).outputs).toEqual(['x', 'y', 'z']);
    expectError(() => parseTool({ name: 'a', outputs: 'x' }), 'INVALID_INPUT', 'parseTool: outputs: expected array, received string');
  });

  it('reads named types: a $ref (alone or as the one allOf entry), an object title, the output schema\'s own title', () => {
    const mcp = JSON.parse(
      JSON.stringify({
        name: 'search_flights',
        inputSchema: {
          type: 'object',
          properties: {
            origin: { $ref: '#/$defs/Airport' },
            destination: { allOf: [{ $ref: '#/$defs/Airport' }], description: 'Where to' },
            when: { type: 'object', title: 'TravelDate' },
            cabin: { type: 'string', title: 'Cabin' },
          },
          required: ['origin', 'destination'],
          $defs: { Airport: { type: 'object', properties: { code: { type: 'string' } } } },
        },
        outputSchema: {
          type: 'object',
          title: 'FlightList',
          properties: { PROTO: { $ref: '#/$defs/Flight' }, count: { type: 'integer' }, cheapest: { type: 'object', title: 'Flight' } },
        },
        // An own `__proto__` key, as JSON.parse makes one: an object literal would set the prototype.
      }).replace('"PROTO"', '"__proto__"'),
    );
    const tool = parseTool(mcp);
    expect(tool.params.map((p) => [p.name, p.type])).toEqual([
      ['origin', 'Airport'],
      ['destination', 'Airport'],
      ['when', 'TravelDate'],
      ['cabin', 'string'], // a field's title is its label, not its type
    ]);
    expect(tool.params[1]!.description).toBe('Where to');
    // Each once, type names only (`integer` is generic); own keys, `__proto__` as any other.
    expect(tool.outputs).toEqual(['__proto__', 'count', 'cheapest']);
    expect(tool.outputTypes).toEqual(['FlightList', 'Flight']);
    // A generic or absent type adds no outputTypes; a ToolInfo reads back as itself, types included.
    expect(parseTool({ name: 't', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { n: { type: 'number' } } } }).outputTypes).toBeUndefined();
    expect(parseTool(JSON.parse(JSON.stringify(tool)))).toEqual(tool);
    expect(parseTool({ name: 'a', outputTypes: ['Airport', 'Airport'] }).outputTypes).toEqual(['Airport']);
    expectError(() => parseTool({ name: 'a', outputTypes: [3] }), 'INVALID_INPUT', 'parseTool: outputTypes[0]: expected string, received number');
    // Odd type keys (loose in MCP) name no type and fail nothing: the tool is read as before.
    const odd = parseTool({
      name: 'odd',
      inputSchema: { type: 'object', properties: { a: { $ref: 7 }, b: { allOf: [{ $ref: '#/$defs/A' }, { $ref: '#/$defs/B' }] }, c: { $ref: '#/$defs/' } } },
      outputSchema: { type: 'object', title: { not: 'a string' }, properties: { x: { $ref: 'x'.repeat(5_000) } } },
    });
    expect(odd.params.map((p) => p.type)).toEqual(['', '', '']);
    expect(odd.outputs).toEqual(['x']);
    expect(odd.outputTypes).toBeUndefined();
  });

  it('falls back to the title when there is no description, and accepts no properties', () => {
    const tool = parseTool({ name: 't', title: 'Title', inputSchema: { type: 'object' } });
    expect(tool).toEqual({ name: 't', description: 'Title', params: [] });
    expect(parseTool({ name: 't', inputSchema: { type: 'object' }, annotations: { title: 'A' } }).description).toBe('A');
  });

  it('keeps hostile parameter names, including an own __proto__ key', () => {
    const input = JSON.parse(
      '{"name":"t","inputSchema":{"type":"object","properties":{"__proto__":{"type":"string","description":"p"},"constructor":{"type":"number"}},"required":["__proto__"]}}',
    );
    expect(parseTool(input).params).toEqual([
      { name: '__proto__', type: 'string', description: 'p', required: true },
      { name: 'constructor', type: 'number', description: '', required: false },
    ]);
    expect(({} as Record<string, unknown>)['type']).toBeUndefined();
  });

  it('validates the schema of a __proto__ property too', () => {
    const input = JSON.parse('{"name":"t","inputSchema":{"type":"object","properties":{"__proto__":{"type":"string","description":5}}}}');
    expectError(() => parseTool(input), 'INVALID_INPUT', 'parseTool: inputSchema.properties.__proto__.description: expected string, received number');
  });

  it('labels the types real servers publish: unions, anyOf/oneOf, enum, const, $ref, nested objects, nullable', () => {
    const properties = {
      union: { type: ['string', 'null'] },
      optional: { anyOf: [{ type: 'string' }, { type: 'null' }], default: null, title: 'Optional' },
      either: { oneOf: [{ type: 'integer' }, { $ref: '#/$defs/Range' }] },
      choice: { enum: ['name', 'size'] },
      mixed: { enum: ['a', 1, null] },
      fixed: { const: 3.5 },
      ref: { $ref: '#/$defs/Airport' },
      nested: { type: 'object', properties: { oldText: { type: 'string' } } },
      untyped: { properties: { a: {} } },
      list: { items: { type: 'string' } },
      nullable: { type: 'string', nullable: true },
      any: {},
      odd: { type: 7 },
      oddMembers: { type: ['string', 3] },
      number: 4,
    };
    const tool = parseTool({ name: 't', inputSchema: { type: 'object', properties, $defs: { Airport: { type: 'object' }, Range: { type: 'object' } } } });
    expect(Object.fromEntries(tool.params.map((p) => [p.name, p.type]))).toEqual({
      union: 'string | null',
      optional: 'string | null',
      either: 'integer | Range',
      choice: 'string',
      mixed: 'string | integer | null',
      fixed: 'number',
      ref: 'Airport',
      nested: 'object',
      untyped: 'object',
      list: 'array',
      nullable: 'string | null',
      any: '',
      odd: '',
      oddMembers: 'string',
      number: '',
    });
    expect(tool.params.find((p) => p.name === 'optional')!.description).toBe('Optional');
  });

  it('reads an input schema whatever its type says, null as no parameters, and null descriptions', () => {
    expect(parseTool({ name: 't', inputSchema: { type: 'array' } }).params).toEqual([]);
    expect(parseTool({ name: 't', inputSchema: { properties: { q: { type: 'string' } } } }).params).toEqual([{ name: 'q', type: 'string', description: '', required: false }]);
    expect(parseTool({ name: 't', description: null, inputSchema: null })).toEqual({ name: 't', description: '', params: [] });
    expect(parseTool({ name: 't', title: 'T', description: null, inputSchema: { type: 'object', properties: { p: { description: null, title: 'P' } }, required: ['p', 7] } })).toEqual({
      name: 't',
      description: 'T',
      params: [{ name: 'p', type: '', description: 'P', required: true }],
    });
    // An output schema of another shape declares no outputs, and refuses nothing.
    expect(parseTool({ name: 't', inputSchema: {}, outputSchema: 'text' })).toEqual({ name: 't', description: '', params: [] });
  });

  const cases: [string, unknown, string][] = [
    ['a text input schema', { name: 't', inputSchema: 'q' }, 'parseTool: inputSchema: expected object, received string'],
    ['properties that are a list', { name: 't', inputSchema: { type: 'object', properties: [] } }, 'parseTool: inputSchema.properties: expected object, received array'],
    ['a numeric property description', { name: 't', inputSchema: { type: 'object', properties: { p: { description: 1 } } } }, 'parseTool: inputSchema.properties.p.description: expected string, received number'],
    ['a numeric description', { name: 't', description: 2, inputSchema: {} }, 'parseTool: description: expected string, received number'],
    ['a zero-width parameter name', { name: 't', inputSchema: { properties: { '\u200b': {} } } }, 'parseTool: inputSchema.properties["\u200b"]: must not be blank'],
    ['required not an array', { name: 't', inputSchema: { type: 'object', required: 'p' } }, 'parseTool: inputSchema.required: expected array, received string'],
    ['an empty parameter name', { name: 't', inputSchema: { type: 'object', properties: { '': {} } } }, 'parseTool: inputSchema.properties[""]: must not be empty'],
    ['a numeric name', { name: 9, inputSchema: { type: 'object' } }, 'parseTool: name: expected string, received number'],
  ];
  for (const [label, input, message] of cases) {
    it(`rejects ${label}`, () => {
      expectError(() => parseTool(input), 'INVALID_INPUT', message);
    });
  }

  it('is mcpToolSchema, loose for newer protocol fields', () => {
    expect(mcpToolSchema.parse(mcpEntry)).toMatchObject({ icons: mcpEntry.icons, _meta: mcpEntry._meta });
  });

  it('limits the number of parameters', () => {
    const properties = Object.fromEntries(Array.from({ length: MAX_TOOL_PARAMS + 1 }, (_, i) => [`p${i}`, {}]));
    expectError(
      () => parseTool({ name: 't', inputSchema: { type: 'object', properties } }),
      'PAYLOAD_TOO_LARGE',
      `parseTool: inputSchema.properties: too many items: ${MAX_TOOL_PARAMS + 1}, the limit is ${MAX_TOOL_PARAMS}`,
    );
    const params = Array.from({ length: MAX_TOOL_PARAMS + 1 }, (_, i) => ({ name: `p${i}` }));
    expectError(() => parseTool({ name: 't', params }), 'PAYLOAD_TOO_LARGE', 'parseTool: params: too many items');
  });
});

describe('parseTool: hostile names', () => {
  for (const [name, reason] of REFUSED_NAMES) {
    it(`refuses ${JSON.stringify(name)} as a tool or parameter name in both formats`, () => {
      expectError(() => parseTool({ name }), 'INVALID_INPUT', `parseTool: name: ${reason}`);
      expectError(() => parseTool({ name, inputSchema: { type: 'object' } }), 'INVALID_INPUT', `parseTool: name: ${reason}`);
      expectError(() => parseTool({ name: 't', params: [{ name }] }), 'INVALID_INPUT', `parseTool: params[0].name: ${reason}`);
    });
  }

  for (const name of HOSTILE_NAMES) {
    it(`round-trips ${JSON.stringify(name.slice(0, 24))}${name.length > 24 ? '…' : ''} in both formats`, () => {
      expect(parseTool({ name }).name).toBe(name);
      expect(parseTool({ name, inputSchema: { type: 'object' } }).name).toBe(name);
      expect(parseTool({ name: 't', params: [{ name }] }).params[0]?.name).toBe(name);
    });
  }

  it('rejects a name over the limit with PAYLOAD_TOO_LARGE', () => {
    expect(parseTool({ name: 'n'.repeat(MAX_TOOL_NAME_LENGTH) }).name).toHaveLength(MAX_TOOL_NAME_LENGTH);
    expectError(() => parseTool({ name: 'n'.repeat(MAX_TOOL_NAME_LENGTH + 1) }), 'PAYLOAD_TOO_LARGE', 'parseTool: name: too long');
  });

  it('rejects deep nesting in extras with PAYLOAD_TOO_LARGE', () => {
    expectError(() => parseTool({ name: 't', extra: nestedArrays(100) }), 'PAYLOAD_TOO_LARGE', 'parseTool: extra', 'nesting deeper');
  });
});

describe('parseCatalog', () => {
  it('accepts an array mixing both formats, in order', () => {
    const tools = parseCatalog([ultratoolLine, mcpEntry, { name: 'bare' }]);
    expect(tools.map((t) => t.name)).toEqual(['order_tracking', 'get_weather', 'bare']);
  });

  it('accepts an MCP tools/list result with nextCursor and _meta', () => {
    const tools = parseCatalog({ tools: [mcpEntry], nextCursor: 'abc', _meta: {} });
    expect(tools).toEqual([parseTool(mcpEntry)]);
  });

  it('accepts an empty catalogue', () => {
    expect(parseCatalog([])).toEqual([]);
    expect(parseCatalog({ tools: [] })).toEqual([]);
  });

  it('rejects duplicate names, naming the duplicate and where it first appeared', () => {
    expectError(
      () => parseCatalog([{ name: 'a' }, { name: 'b' }, { name: 'a' }]),
      'INVALID_INPUT',
      'parseCatalog: [2].name: duplicate tool name "a" (first at [0])',
    );
    expectError(
      () => parseCatalog({ tools: [mcpEntry, { name: 'get_weather' }] }),
      'INVALID_INPUT',
      'parseCatalog: tools[1].name: duplicate tool name "get_weather" (first at tools[0])',
    );
  });

  it('tells __proto__, constructor and hasOwnProperty apart from object internals', () => {
    const names = ['__proto__', 'constructor', 'hasOwnProperty', 'toString'];
    expect(parseCatalog(names.map((name) => ({ name }))).map((t) => t.name)).toEqual(names);
    expectError(
      () => parseCatalog([{ name: '__proto__' }, { name: '__proto__' }]),
      'INVALID_INPUT',
      'duplicate tool name "__proto__"',
    );
  });

  it('reports every bad tool with its index', () => {
    const error = expectError(
      () => parseCatalog({ tools: [{ name: 'ok' }, { name: '' }, { name: 'x', inputSchema: 'string' }] }),
      'INVALID_INPUT',
      'parseCatalog: tools[1].name: must not be empty (and 1 more issue)',
    );
    expect(issuesOf(error).map((i) => i.path)).toEqual(['tools[1].name', 'tools[2].inputSchema']);
  });

  it('reads a tools/list result with keys of a newer revision, and a JSON-RPC answer carrying one', () => {
    expect(parseCatalog({ tools: [{ name: 'a' }], servers: [], nextCursor: null }).map((t) => t.name)).toEqual(['a']);
    expect(parseCatalog({ jsonrpc: '2.0', id: 1, result: { tools: [mcpEntry] } })).toEqual([parseTool(mcpEntry)]);
    expectError(() => parseCatalog({ jsonrpc: '2.0', id: 1, result: { tools: [{}] } }), 'INVALID_INPUT', 'parseCatalog: result.tools[0].name: missing, expected string');
  });

  const cases: [string, unknown, string][] = [
    ['null', null, 'parseCatalog: expected array, received null'],
    ['a string', 'tools', 'parseCatalog: expected array, received string'],
    ['a wrapper without tools', { nextCursor: 'x' }, 'parseCatalog: tools: missing, expected array'],
    ['a wrapper whose tools is not a list', { tools: { a: {} } }, 'parseCatalog: tools: expected array, received object'],
    ['a non-object tool', [{ name: 'a' }, 7], 'parseCatalog: [1]: expected object, received number'],
  ];
  for (const [label, input, message] of cases) {
    it(`rejects ${label}`, () => {
      expectError(() => parseCatalog(input), 'INVALID_INPUT', message);
    });
  }

  it('limits the catalogue size', () => {
    const tools = Array.from({ length: MAX_CATALOG_TOOLS + 1 }, () => ({}));
    expectError(
      () => parseCatalog(tools),
      'PAYLOAD_TOO_LARGE',
      `parseCatalog: too many items: ${MAX_CATALOG_TOOLS + 1}, the limit is ${MAX_CATALOG_TOOLS}`,
    );
  });
});
