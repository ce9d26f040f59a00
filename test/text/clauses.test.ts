import { describe, expect, it } from 'vitest';
import { clauseTexts, splitClauses } from '../../src/text/clauses.js';
import { tokenize } from '../../src/text/tokenize.js';

describe('clauses', () => {
  it('splits at sentence punctuation and at the words that chain steps, in order', () => {
    const text = 'Find hotels in Rome, then convert the price to euros. After that email me; and also the weather!';
    expect(clauseTexts(text).map((c) => c.trim())).toEqual(['Find hotels in Rome', 'convert the price to euros', 'that email me', 'the weather']);
    expect(splitClauses(text)).toEqual(clauseTexts(text).map((c) => tokenize(c)));
  });

  it('drops parts without content words and keeps a text without separators whole', () => {
    expect(clauseTexts('the weather in Paris')).toEqual(['the weather in Paris']);
    expect(clauseTexts('..., and then ...')).toEqual([]);
    expect(splitClauses('')).toEqual([]);
  });
});
