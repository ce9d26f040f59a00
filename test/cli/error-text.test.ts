import { describe, expect, it } from 'vitest';
import { errorText, reasonOf } from '../../src/cli/error-text.js';
import { inFile, ToolgraphError } from '../../src/schema/errors.js';

describe('the CLI error line', () => {
  it('prints the location from data, the code, and the message without the call or the location', () => {
    const line = new ToolgraphError('INVALID_INPUT', 't.jsonl:2: parseTrace: tools: expected array, received number', undefined, { file: 't.jsonl', line: 2 });
    expect(errorText('ingest', line)).toBe('toolgraph ingest: t.jsonl:2: INVALID_INPUT: tools: expected array, received number');
    const file = new ToolgraphError('NOT_FOUND', 'readTextFile: nope.jsonl: no such file', undefined, { file: 'nope.jsonl' });
    expect(errorText('predict', file)).toBe('toolgraph predict: nope.jsonl: NOT_FOUND: no such file');
    // A location given as data whose message does not repeat it: said once, in front.
    const catalogue = inFile(new ToolgraphError('INVALID_INPUT', 'parseCatalog: [1].name: must not be empty'), { file: 'c.json' }) as ToolgraphError;
    expect(errorText('tools', catalogue)).toBe('toolgraph tools: c.json: INVALID_INPUT: [1].name: must not be empty');
  });

  it('drops a camelCase call, the command name or toolgraph, once; keeps field paths, options and files', () => {
    const reason = (message: string, command = 'x') => reasonOf(new ToolgraphError('INVALID_INPUT', message), command);
    expect(reason('openaiEmbedder.embed: timed out')).toBe('timed out');
    expect(reason('eval: --data DIR is required', 'eval')).toBe('--data DIR is required');
    expect(reason('toolgraph: bundled samples/nestful not found')).toBe('bundled samples/nestful not found');
    expect(reason('tools: expected array')).toBe('tools: expected array');
    expect(reason('parseTrace: startedAt: expected a number')).toBe('startedAt: expected a number');
    expect(reason('--k: expected an integer >= 1')).toBe('--k: expected an integer >= 1');
    expect(reason('bad.jsonl: cannot read')).toBe('bad.jsonl: cannot read');
    expect(errorText('stats', new ToolgraphError('INTERNAL', 'getWeights: the stored weights are malformed'))).toBe('toolgraph stats: INTERNAL: the stored weights are malformed');
  });

  it('inFile keeps an error that already says where, and internal errors as they are', () => {
    const located = new ToolgraphError('INVALID_INPUT', 'a', undefined, { file: 'a.jsonl', line: 3 });
    expect(inFile(located, { file: 'b.json' })).toBe(located);
    const internal = new ToolgraphError('INTERNAL', 'boom');
    expect(inFile(internal, { file: 'b.json' })).toBe(internal);
    const plain = new Error('x');
    expect(inFile(plain, { file: 'b.json' })).toBe(plain);
    const moved = inFile(new ToolgraphError('UNKNOWN_TOOL', 'm', { d: 1 }), { file: 'b.json' }) as ToolgraphError;
    expect([moved.code, moved.message, moved.details, moved.location]).toEqual(['UNKNOWN_TOOL', 'm', { d: 1 }, { file: 'b.json' }]);
  });
});
