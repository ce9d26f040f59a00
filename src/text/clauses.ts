/**
 * Splits a request into its clauses, in order, each tokenised: at sentence punctuation and at
 * words that chain steps ("and", "then", "after that", ...). A request that names several
 * steps tends to name them in the order they are done, so which clause a tool matches says
 * whether it comes before or after the tools already called (see features.ts, mentionAfter).
 *
 * The punctuation split works for any script; the chaining words are English, the language of
 * every dataset we measure on. A text with no separator is one clause. O(length).
 */
import { tokenize } from './tokenize.js';

const SEPARATOR = /[.;:!?,\u3002\uff0c\uff1b\n]+|\b(?:and|then|after|afterwards|also|next|finally|before|plus|followed)\b/giu;

/** A clause: its text as written (for a search of the clause on its own) and its tokens. */
export interface Clause {
  readonly text: string;
  readonly tokens: string[];
}

/** The clauses of a text in order, each tokenised once; parts without content words are dropped. */
export function clauseParts(text: string): Clause[] {
  const clauses: Clause[] = [];
  for (const part of text.split(SEPARATOR)) {
    if (part === undefined) continue;
    const tokens = tokenize(part);
    if (tokens.length > 0) clauses.push({ text: part, tokens });
  }
  return clauses;
}

/** The tokens of each clause of clauseParts, in order. */
export function splitClauses(text: string): string[][] {
  return clauseParts(text).map((clause) => clause.tokens);
}
