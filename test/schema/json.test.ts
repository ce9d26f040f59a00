import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ToolgraphError } from '../../src/schema/errors.js';
import { describeValue, formatPath, parseWith } from '../../src/schema/issues.js';
import {
  assertJsonDepth,
  canonicalJson,
  contentHash,
  findJsonProblem,
  jsonObjectSchema,
  jsonValueSchema,
} from '../../src/schema/json.js';
import { MAX_JSON_DEPTH } from '../../src/schema/limits.js';
import { expectError, nestedArrays } from './_helpers.js';

describe('formatPath', () => {
  it('writes paths as a JavaScript reader would', () => {
    expect(formatPath([])).toBe('');
    expect(formatPath(['steps', 3, 'tool', 'name'])).toBe('steps[3].tool.name');
    expect(formatPath([0, 'name'])).toBe('[0].name');
    expect(formatPath(['@type'])).toBe('@type');
    expect(formatPath(['edges', 0, 1])).toBe('edges[0][1]');
  });

  it('quotes keys that are not identifiers, and shortens very long ones', () => {
    expect(formatPath(['properties', 'a b'])).toBe('properties["a b"]');
    expect(formatPath(['p', ''])).toBe('p[""]');
    expect(formatPath(['p', '🔧'])).toBe('p["🔧"]');
    expect(formatPath(['p', 'a"]'])).toBe('p["a\\"]"]');
    const long = formatPath(['k'.repeat(500)]);
    expect(long.length).toBeLessThan(80);
    expect(long).toContain('…');
  });

  it('elides the middle of deep paths', () => {
    const path = ['input', ...Array.from({ length: 100 }, () => 0), 'leaf'];
    const text = formatPath(path);
    expect(text.startsWith('input[0]')).toBe(true);
    expect(text).toContain('more levels');
    expect(text.endsWith('.leaf')).toBe(true);
    expect(text.length).toBeLessThan(120);
  });
});

describe('describeValue', () => {
  it('names kinds, never values', () => {
    expect([null, [], {}, 'x', 1, Number.NaN, Infinity, -Infinity, true, undefined, 1n].map(describeValue)).toEqual([
      'null', 'array', 'object', 'string', 'number', 'NaN', 'Infinity', '-Infinity', 'boolean', 'undefined', 'bigint',
    ]);
    expect(describeValue(new Date())).toBe('Date instance');
    expect(describeValue(Object.create(null))).toBe('object');
  });
});

describe('findJsonProblem and assertJsonDepth', () => {
  it('accepts exactly MAX_JSON_DEPTH levels and rejects one more', () => {
    expect(findJsonProblem(nestedArrays(MAX_JSON_DEPTH))).toBeUndefined();
    expect(findJsonProblem(nestedArrays(MAX_JSON_DEPTH + 1))?.kind).toBe('depth');
    expect(() => assertJsonDepth(nestedArrays(MAX_JSON_DEPTH), 'f')).not.toThrow();
    expectError(() => assertJsonDepth(nestedArrays(MAX_JSON_DEPTH + 1), 'f'), 'PAYLOAD_TOO_LARGE', 'f: ', 'nesting deeper than 64 levels');
  });

  it('handles a million levels without recursion', () => {
    expect(findJsonProblem(nestedArrays(1_000_000))?.kind).toBe('depth');
  });

  it('stops cycles at the depth limit', () => {
    const a: Record<string, unknown> = {};
    const b: Record<string, unknown> = { a };
    a['b'] = b;
    const problem = findJsonProblem({ a });
    expect(problem?.kind).toBe('depth');
    expect(problem?.path.slice(0, 3)).toEqual(['a', 'b', 'a']);
  });

  it('visits a widely shared object a bounded number of times', () => {
    // 40 levels, each holding the next level twice: 2^40 paths, 40 objects.
    let value: unknown = { leaf: 1 };
    for (let i = 0; i < 40; i++) value = [value, value];
    const started = Date.now();
    expect(findJsonProblem(value)).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('reports the first non-JSON value in document order, with its path', () => {
    expect(findJsonProblem({ a: [1, 2, Number.NaN], b: undefined })?.path).toEqual(['a', 2]);
    expect(findJsonProblem({ a: 1n })?.message).toBe('expected a JSON value, received bigint');
    expect(findJsonProblem([new Map()])?.message).toBe('expected a JSON value, received a class instance');
    expect(findJsonProblem({ a: Symbol('s') })?.message).toBe('expected a JSON value, received symbol');
    // Holes in sparse arrays are undefined.
    expect(findJsonProblem([1, , 3])?.path).toEqual([1]);
  });

  it('checks only depth when JSON is not required', () => {
    expect(findJsonProblem({ a: undefined, f: () => 1 }, MAX_JSON_DEPTH, false)).toBeUndefined();
  });
});

describe('JSON schemas', () => {
  it('return the value as given, keeping own __proto__ keys', () => {
    const value = JSON.parse('{"__proto__":{"x":1},"a":[1,"2",null,true]}');
    expect(jsonObjectSchema.parse(value)).toBe(value);
    expect(Object.keys(jsonValueSchema.parse(value) as object)).toEqual(['__proto__', 'a']);
  });

  it('name the path of a bad value', () => {
    expectError(() => parseWith(jsonValueSchema, { a: { b: Number.NaN } }, 'f'), 'INVALID_INPUT', 'f: a.b: NaN is not a JSON number');
    expectError(() => parseWith(jsonObjectSchema, 'x', 'f'), 'INVALID_INPUT', 'f: expected object, received string');
  });

  it('report over-deep values as a limit', () => {
    expectError(() => parseWith(jsonValueSchema, nestedArrays(MAX_JSON_DEPTH + 1), 'f'), 'PAYLOAD_TOO_LARGE', 'nesting deeper');
  });
});

describe('canonicalJson and contentHash', () => {
  it('sorts keys at every level and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: undefined } })).toBe('{"a":{"d":[3,{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson([undefined])).toBe('[null]');
    expect(canonicalJson(-0)).toBe('0');
    expect(canonicalJson('é')).toBe('"é"');
  });

  it('is SHA-256 of the canonical text, equal for equal values', () => {
    const expected = createHash('sha256').update('{"a":1,"b":2}').digest('hex');
    expect(contentHash({ b: 2, a: 1 })).toBe(expected);
    expect(contentHash({ a: 1, b: 2 })).toBe(expected);
    expect(contentHash({ a: 1, b: 3 })).not.toBe(expected);
    expect(contentHash(JSON.parse('{"__proto__":1}'))).not.toBe(contentHash({}));
  });

  it('refuses, as a bug, a value deeper than validation allows', () => {
    expect(() => canonicalJson(nestedArrays(MAX_JSON_DEPTH * 3))).toThrow(ToolgraphError);
  });
});
