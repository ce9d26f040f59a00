import { describe, expect, it } from 'vitest';
import { clauseParts, splitClauses } from '../../src/text/clauses.js';
import { tokenize } from '../../src/text/tokenize.js';

describe('clauses', () => {
  it('splits at sentence punctuation and at the words that chain steps, in order', () => {
    const text = 'Find hotels in Rome, then convert the price to euros. After that email me; and also the weather!';
    expect(clauseParts(text).map((c) => c.text.trim())).toEqual(['Find hotels in Rome', 'convert the price to euros', 'that email me', 'the weather']);
    expect(splitClauses(text)).toEqual(clauseParts(text).map((c) => tokenize(c.text)));
  });

  it('drops parts without content words and keeps a text without separators whole', () => {
    expect(clauseParts('the weather in Paris').map((c) => c.text)).toEqual(['the weather in Paris']);
    expect(clauseParts('..., and then ...')).toEqual([]);
    expect(splitClauses('')).toEqual([]);
  });
});
