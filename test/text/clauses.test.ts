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

describe('clauses: values are not steps', () => {
  const texts = (text: string): string[] => clauseParts(text).map((c) => c.text.trim());

  it('does not split a number at its point or comma', () => {
    expect(texts('Calculate the BMI for a height of 1.75 meters and a weight of 10,000 grams, then print it')).toEqual([
      'Calculate the BMI for a height of 1.75 meters',
      'a weight of 10,000 grams',
      'print it',
    ]);
  });

  it('does not split at a point inside a word, nor after an abbreviation the sentence goes on after', () => {
    expect(texts('I want to change my alarm from 8 a.m. every day to 7 a.m., then cancel my 9 a.m. alarm every Monday')).toEqual([
      'I want to change my alarm from 8 a.m. every day to 7 a.m',
      'cancel my 9 a.m. alarm every Monday',
    ]);
    expect(texts('Create Schedule.txt on www.example.com, e.g. a plan. Email it to bob@example.com')).toEqual([
      'Create Schedule.txt on www.example.com',
      'e.g. a plan',
      'Email it to bob@example.com',
    ]);
    // A sentence that ends with an abbreviation still ends: what follows begins in upper case.
    expect(texts('Wake me at 7 a.m. Book a taxi. Pay it')).toEqual(['Wake me at 7 a.m', 'Book a taxi', 'Pay it']);
  });

  it('does not split inside quotes, and an apostrophe inside a word opens none', () => {
    expect(texts("Create a task titled 'Call John, then email him' and then send it")).toEqual(["Create a task titled 'Call John, then email him'", 'send it']);
    expect(texts('Create a task titled "Call John. Then email him" and then send it')).toEqual(['Create a task titled "Call John. Then email him"', 'send it']);
    expect(texts("Get Kohli's posts, and then John's reels")).toEqual(["Get Kohli's posts", "John's reels"]);
  });

  it('joins a part made only of values to the clause before it', () => {
    const parts = clauseParts("Search for recipes with 'carrots', 'spinach', and 'lentils', and then analyse the sentiment of the first");
    expect(parts.map((c) => c.tokens)).toEqual([
      [...tokenize("Search for recipes with 'carrots'"), ...tokenize("'spinach'"), ...tokenize("'lentils'")],
      tokenize('analyse the sentiment of the first'),
    ]);
    expect(texts('Apply discounts of 10% and $20, then compute the sales tax')).toEqual(['Apply discounts of 10%   $20', 'compute the sales tax']);
    // However long the list, one clause holds every value.
    const list = clauseParts(`email ${Array.from({ length: 5000 }, (_, i) => `'user${i}'`).join(', ')}, then archive them`);
    expect(list.map((c) => c.tokens.length)).toEqual([1 + 5000 * tokenize("'user1'").length, tokenize('archive them').length]);
    // A text that starts with a value keeps it as its first clause: there is nothing before it to join.
    expect(texts("'lentils', and then cook them")).toEqual(["'lentils'", 'cook them']);
  });

  it('splits a request written inside quotes as a whole', () => {
    expect(texts('"Play some soothing music. Also, let me know if it will rain."')).toEqual(['"Play some soothing music', 'let me know if it will rain']);
  });

  it('marks the clauses that recount what is done, not those that ask for a step', () => {
    const background = (text: string): boolean[] => clauseParts(text).map((c) => c.background);
    expect(background('I have set a daily alarm for 7:30, please cancel this alarm and set a new one for 7:00')).toEqual([true, false, false]);
    expect(background('My flight was booked for Monday. Change it to Tuesday')).toEqual([true, false]);
    expect(background('The order has already shipped, then refund it')).toEqual([true, false]);
    // "have to" asks for the step.
    expect(background('I have to cancel my flight, then book a hotel')).toEqual([false, false]);
    expect(background('Haversine distance from Paris to Rome')).toEqual([false]);
    // Words inside a quoted value are not the request's own.
    expect(background("Analyze the sentiment of 'the best meal I have ever had', then email it")).toEqual([false, false]);
  });
});
