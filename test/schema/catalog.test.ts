/**
 * Whole catalogues as registries publish them (catalog.ts, openapi.ts): the shipped fixtures
 * (test/fixtures/catalogues/README.md says where each comes from), the lenient reader's skipped
 * entries, and the limits that still refuse a catalogue whole.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseCatalog, readCatalog } from '../../src/schema/catalog.js';
import { parseTool } from '../../src/schema/tool.js';
import { readCatalogJsonl } from '../../src/schema/dataset.js';
import { MAX_CATALOG_TOOLS, MAX_TOOL_NAME_LENGTH } from '../../src/schema/limits.js';
import type { ToolInfo } from '../../src/schema/types.js';
import { expectError } from './_helpers.js';

const FIXTURES = new URL('../fixtures/catalogues/', import.meta.url);
const fixture = (name: string): any => JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8'));
const MCP = 'mcp-reference-servers.tools-list.json';
const PETSTORE = 'petstore-expanded.openapi.json';

function byName(tools: readonly ToolInfo[]): Record<string, ToolInfo> {
  return Object.fromEntries(tools.map((t) => [t.name, t]));
}

function types(tool: ToolInfo | undefined): Record<string, string> {
  return Object.fromEntries((tool?.params ?? []).map((p) => [p.name, p.type]));
}

describe('an MCP tools/list result of the reference servers', () => {
  const tools = byName(parseCatalog(fixture(MCP)));

  it('reads every tool, in order', () => {
    expect(Object.keys(tools)).toEqual(['read_text_file', 'edit_file', 'list_directory_with_sizes', 'read_media_file', 'fetch', 'git_log', 'git_create_branch', 'git_add', 'book_trip']);
  });

  it('reads the filesystem server: nested objects, an enum with a default, outputs', () => {
    expect(tools['edit_file']!.params).toEqual([
      { name: 'path', type: 'string', description: '', required: true },
      { name: 'edits', type: 'array', description: '', required: true },
      { name: 'dryRun', type: 'boolean', description: 'Preview changes using git-style diff format', required: false },
    ]);
    expect(tools['list_directory_with_sizes']!.params[1]).toEqual({ name: 'sortBy', type: 'string', description: 'Sort entries by name or size', required: false });
    expect(tools['read_text_file']!.outputs).toEqual(['content']);
    expect(tools['read_media_file']!.outputs).toEqual(['content']);
    expect(tools['read_text_file']!.description).toMatch(/^Read the complete contents of a file/);
  });

  it('reads pydantic schemas: titles as descriptions, Optional as a union, bounds ignored', () => {
    expect(tools['fetch']!.params).toEqual([
      { name: 'url', type: 'string', description: 'URL to fetch', required: true },
      { name: 'max_length', type: 'integer', description: 'Maximum number of characters to return.', required: false },
      { name: 'start_index', type: 'integer', description: expect.stringMatching(/^On return output/), required: false },
      { name: 'raw', type: 'boolean', description: expect.stringMatching(/^Get the actual HTML/), required: false },
    ]);
    expect(types(tools['git_log'])).toEqual({ repo_path: 'string', max_count: 'integer', start_timestamp: 'string | null', end_timestamp: 'string | null' });
    expect(tools['git_create_branch']!.params[2]).toEqual({ name: 'base_branch', type: 'string | null', description: 'Base Branch', required: false });
    expect(types(tools['git_add'])).toEqual({ repo_path: 'string', files: 'array' });
  });

  it('reads $defs and $ref as named types, a type union, and a named output type', () => {
    const trip = tools['book_trip']!;
    expect(types(trip)).toEqual({ origin: 'Airport', destination: 'Airport', cabin: 'Cabin', return_date: 'string | null', passengers: 'array' });
    expect(trip.params.filter((p) => p.required).map((p) => p.name)).toEqual(['origin', 'destination']);
    expect(trip.params[0]!.description).toBe('Where the trip starts');
    expect(trip.outputs).toEqual(['booking_id', 'arrival']);
    expect(trip.outputTypes).toEqual(['Booking', 'Airport']);
  });

  it('reads the same in the lenient reader, skipping nothing, and reads back as itself', () => {
    const read = readCatalog(fixture(MCP));
    expect(read.skipped).toEqual([]);
    expect(byName(read.tools)).toEqual(tools);
    expect(parseCatalog(JSON.parse(JSON.stringify(read.tools)))).toEqual(read.tools);
  });
});

describe('an OpenAPI 3 document (the Petstore example)', () => {
  const tools = parseCatalog(fixture(PETSTORE));
  const named = byName(tools);

  it('makes each operation a tool, named by its operationId', () => {
    expect(tools.map((t) => t.name)).toEqual(['findPets', 'addPet', 'find pet by id', 'deletePet']);
  });

  it('takes parameters from `parameters` and the request body, required as declared (path ones always)', () => {
    expect(named['findPets']!.params).toEqual([
      { name: 'tags', type: 'array', description: 'tags to filter by', required: false },
      { name: 'limit', type: 'integer', description: 'maximum number of results to return', required: false },
    ]);
    expect(named['addPet']!.params).toEqual([
      { name: 'name', type: 'string', description: '', required: true },
      { name: 'tag', type: 'string', description: '', required: false },
    ]);
    expect(named['deletePet']!.params).toEqual([{ name: 'id', type: 'integer', description: 'ID of pet to delete', required: true }]);
  });

  it('takes the description, and the outputs and type of the first 2xx response (allOf merged)', () => {
    expect(named['addPet']!.description).toBe('Creates a new pet in the store. Duplicates are allowed');
    expect(named['findPets']!.description).toMatch(/^Returns all pets from the system/);
    expect(named['addPet']!.outputs).toEqual(['name', 'tag', 'id']);
    expect(named['addPet']!.outputTypes).toEqual(['Pet']);
    expect(named['find pet by id']!.outputTypes).toEqual(['Pet']);
    // A list of pets is not a pet; a 204 returns nothing.
    expect(named['findPets']!.outputs).toBeUndefined();
    expect(named['deletePet']!.outputs).toBeUndefined();
  });

  it('names an operation without operationId by method and path, joins summary and description, follows $refs', () => {
    const doc = {
      openapi: '3.1.0',
      paths: {
        '/orders/{orderId}': {
          parameters: [{ $ref: '#/components/parameters/OrderId' }],
          get: { summary: 'Get an order', description: 'By its id.', parameters: [{ name: 'expand', in: 'query', required: 'true', schema: { type: ['string', 'null'] } }] },
          put: { summary: 'Replace an order', requestBody: { $ref: '#/components/requestBodies/Order' } },
          patch: { requestBody: { content: { 'text/plain': { schema: { type: 'string' } } }, required: 'true', description: 'new note' } },
        },
      },
      components: {
        parameters: { OrderId: { name: 'orderId', in: 'path', schema: { type: 'string' } } },
        requestBodies: { Order: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Order' } } } } },
        schemas: { Order: { type: 'object', required: ['items'], properties: { items: { type: 'array' }, note: { anyOf: [{ type: 'string' }, { type: 'null' }], description: null } } } },
      },
    };
    expect(parseCatalog(doc)).toEqual([
      {
        name: 'GET /orders/{orderId}',
        description: 'Get an order\n\nBy its id.',
        params: [
          { name: 'orderId', type: 'string', description: '', required: true },
          { name: 'expand', type: 'string | null', description: '', required: true },
        ],
      },
      {
        name: 'PUT /orders/{orderId}',
        description: 'Replace an order',
        params: [
          { name: 'orderId', type: 'string', description: '', required: true },
          { name: 'items', type: 'array', description: '', required: true },
          { name: 'note', type: 'string | null', description: '', required: false },
        ],
      },
      {
        name: 'PATCH /orders/{orderId}',
        description: '',
        params: [
          { name: 'orderId', type: 'string', description: '', required: true },
          { name: 'body', type: 'string', description: 'new note', required: true },
        ],
      },
    ]);
  });

  it('skips an operation it cannot read, naming its path, and refuses a document it cannot read at all', () => {
    const doc = {
      openapi: '3.0.3',
      paths: {
        '/a': { get: { operationId: 'ok' }, post: 'not an operation', put: { operationId: '\u200b' } },
        '/b': { get: { parameters: [{ $ref: 'other.yaml#/components/parameters/X' }] }, delete: { parameters: [{ in: 'query' }] } },
      },
    };
    const read = readCatalog(doc);
    expect(read.tools.map((t) => t.name)).toEqual(['ok']);
    expect(read.skipped).toEqual([
      { index: 1, at: 'paths["/a"].post', reason: 'paths["/a"].post: expected object, received string' },
      { index: 2, at: 'paths["/a"].put', reason: 'paths["/a"].put.operationId: must not be blank (white space, zero-width or format characters only)' },
      { index: 3, at: 'paths["/b"].get', reason: 'paths["/b"].get.parameters[0].$ref: cannot resolve "other.yaml#/components/parameters/X": only references inside the document (#/...) are read' },
      { index: 4, at: 'paths["/b"].delete', reason: 'paths["/b"].delete.parameters[0].name: missing, expected string' },
    ]);
    expectError(() => parseCatalog(doc), 'INVALID_INPUT', 'parseCatalog: paths["/a"].post: expected object, received string (and 3 more issues)');
    expectError(() => parseCatalog({ swagger: '2.0', paths: {} }), 'INVALID_INPUT', 'parseCatalog: swagger: Swagger 2.0 documents are not read');
    expectError(() => parseCatalog({ openapi: '2.0', paths: {} }), 'INVALID_INPUT', 'parseCatalog: openapi: expected an OpenAPI 3 version');
    expectError(() => parseCatalog({ openapi: '3.0.0', paths: [] }), 'INVALID_INPUT', 'parseCatalog: paths: expected object, received array');
    expect(parseCatalog({ openapi: '3.1.0', webhooks: {} })).toEqual([]);
  });

  it('still refuses a name past the limit whole', () => {
    const doc = { openapi: '3.0.0', paths: { '/a': { get: { operationId: 'n'.repeat(MAX_TOOL_NAME_LENGTH + 1) }, post: {} } } };
    expectError(() => readCatalog(doc), 'PAYLOAD_TOO_LARGE', 'readCatalog: paths["/a"].get.operationId: too long');
  });
});

describe('readCatalog: what a real registry sends', () => {
  // The first line of a published registry of 2,375 MCP tools failed on `category` (a list) and
  // then on `params[0].type` (a JSON Schema type union); a catalogue converted from an OpenAPI
  // spec on `"required": "true"`.
  const registryLine = {
    name: 'create_issue',
    description: 'Create a new issue in a repository',
    category: ['developer-tools', 'git'],
    server: ['github'],
    tags: ['issues'],
    params: [
      { name: 'title', type: 'string', description: 'Issue title', required: 'true' },
      { name: 'body', type: ['string', 'null'], description: null, required: 'false' },
    ],
  };

  it('reads it', () => {
    expect(readCatalog([registryLine])).toEqual({
      tools: [
        {
          name: 'create_issue',
          description: 'Create a new issue in a repository',
          params: [
            { name: 'title', type: 'string', description: 'Issue title', required: true },
            { name: 'body', type: 'string | null', description: '', required: false },
          ],
        },
      ],
      skipped: [],
    });
  });

  it('skips the entries it cannot read, with index, path and reason, and reads the rest', () => {
    const read = readCatalog({ tools: [registryLine, { description: 'no name' }, { name: 7 }, 'text', { name: '\u200b\u200b' }, { name: 'x', params: 'p' }, { name: 'ok' }] });
    expect(read.tools.map((t) => t.name)).toEqual(['create_issue', 'ok']);
    expect(read.skipped).toEqual([
      { index: 1, at: 'tools[1]', reason: 'tools[1].name: missing, expected string' },
      { index: 2, at: 'tools[2]', reason: 'tools[2].name: expected string, received number' },
      { index: 3, at: 'tools[3]', reason: 'tools[3]: expected object, received string' },
      { index: 4, at: 'tools[4]', reason: 'tools[4].name: must not be blank (white space, zero-width or format characters only)' },
      { index: 5, at: 'tools[5]', reason: 'tools[5].params: expected array, received string' },
    ]);
  });

  it('is strict when told: nothing read, every issue named', () => {
    expectError(() => readCatalog([{ name: 'ok' }, {}], { strict: true }), 'INVALID_INPUT', 'readCatalog: [1].name: missing, expected string');
    expectError(() => parseCatalog([{ name: 'ok' }, {}]), 'INVALID_INPUT', 'parseCatalog: [1].name: missing, expected string');
  });

  it('keeps duplicates and limits fatal in the lenient reader', () => {
    expectError(() => readCatalog([{ name: 'a' }, {}, { name: 'a' }]), 'INVALID_INPUT', 'readCatalog: [2].name: duplicate tool name "a" (first at [0])');
    expectError(() => readCatalog([{}, { name: 'n'.repeat(MAX_TOOL_NAME_LENGTH + 1) }]), 'PAYLOAD_TOO_LARGE', 'readCatalog: [1].name: too long');
    expectError(() => readCatalog(Array.from({ length: MAX_CATALOG_TOOLS + 1 }, () => ({}))), 'PAYLOAD_TOO_LARGE', 'too many items');
  });

  it('reads JSON lines the same way, each skipped entry with its line', () => {
    const text = [JSON.stringify(registryLine), '', '{not json', JSON.stringify({ name: '' }), JSON.stringify({ name: 'b', params: [{ name: 'p', required: 'yes' }] }), JSON.stringify({ name: 'c' })].join('\n');
    const read = readCatalogJsonl(text, 'registry.jsonl');
    expect(read.tools.map((t) => t.name)).toEqual(['create_issue', 'c']);
    expect(read.skipped).toEqual([
      { line: 3, reason: expect.stringMatching(/^invalid JSON: /) },
      { line: 4, reason: 'name: must not be empty' },
      { line: 5, reason: 'params[0].required: expected boolean, received string' },
    ]);
    expectError(() => readCatalogJsonl(`${JSON.stringify({ name: 'n'.repeat(MAX_TOOL_NAME_LENGTH + 1) })}\n`, 'r.jsonl'), 'PAYLOAD_TOO_LARGE', 'r.jsonl:1: name: too long');
  });
});

/** Runs `fn` and asserts it took less than `ms`: a synchronous walk cannot be cut by vitest's timeout. */
function within<T>(ms: number, fn: () => T): T {
  const start = performance.now();
  const result = fn();
  expect(performance.now() - start).toBeLessThan(ms);
  return result;
}

describe('hostile catalogue shapes end quickly', () => {
  it('merges a request body whose allOf references fan out, each schema once', () => {
    // 300 references to B, whose allOf holds 300 references to C, whose allOf holds 300 to D:
    // 27 million paths through 4 schemas.
    const refs = (to: string) => Array.from({ length: 300 }, () => ({ $ref: `#/components/schemas/${to}` }));
    const doc = {
      openapi: '3.0.0',
      paths: { '/x': { post: { operationId: 'x', requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/A' } } } } } } },
      components: {
        schemas: { A: { allOf: refs('B') }, B: { allOf: refs('C'), properties: { b: { type: 'string' } } }, C: { allOf: refs('D'), properties: { c: { type: 'integer' } }, required: ['c'] }, D: {} },
      },
    };
    expect(within(2_000, () => parseCatalog(doc))[0]!.params).toEqual([
      { name: 'b', type: 'string', description: '', required: false },
      { name: 'c', type: 'integer', description: '', required: true },
    ]);
  });

  it('refuses a request body of more properties than a tool may have parameters, in linear time', () => {
    const properties = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`p${i}`, {}]));
    const doc = { openapi: '3.0.0', paths: { '/x': { post: { requestBody: { content: { 'application/json': { schema: { properties } } } } } } } };
    within(3_000, () => expectError(() => readCatalog(doc), 'PAYLOAD_TOO_LARGE', 'readCatalog: paths["/x"].post.parameters: too many parameters: 100000, the limit is 1000'));
  });

  it('labels a type whose anyOf members are shared, built in code, without walking every path', () => {
    // 28 levels of anyOf: [x, x] over one shared member (within the nesting limit): 2^28 paths through 28 objects.
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 28; i++) schema = { anyOf: [schema, schema] };
    expect(within(2_000, () => parseTool({ name: 't', inputSchema: { type: 'object', properties: { p: schema } } })).params[0]!.type).toBe('string');
  });
});
