/**
 * Splits a request into its clauses, in order, each tokenised: at sentence punctuation and at
 * words that chain steps ("and", "then", "after that", ...). A request that names several
 * steps tends to name them in the order they are done, so which clause a tool matches says
 * whether it comes before or after the tools already called (see features.ts, mentionAfter).
 *
 * Values are not steps: a point or comma between digits (1.75, 10,000) and anything inside
 * quotes ('carrots, spinach and lentils') split nothing, and a part that holds nothing but
 * values (quoted text, numbers: the `'spinach'` of "'carrots', 'spinach', and 'lentils'") joins
 * the clause before it. Split there, a request that names two steps had come out as four
 * clauses, two of which named no tool.
 *
 * Nor does a point that ends no sentence: one inside a word (`Schedule.txt`, `a.m`,
 * `www.example.com`), or one closing a dotted abbreviation that the sentence goes on after
 * (`at 8 a.m. every day`, `e.g. a`). Split there, "change my alarm from 8 a.m. every day to 7
 * a.m., then cancel my 9 a.m. alarm" came out as six clauses, `cancel my 9 a` one of them.
 *
 * The punctuation split works for any script; the chaining words are English, the language of
 * every dataset we measure on. A text with no separator is one clause. O(length).
 */
import { tokenize } from './tokenize.js';

const SEPARATOR = /[.;:!?,\u3002\uff0c\uff1b\n]+|\b(?:and|then|after|afterwards|also|next|finally|before|plus|followed)\b/giu;
/**
 * Quoted values: between straight or typographic quotes on one line, a single quote only where
 * it does not sit inside a word (the apostrophe of "Kohli's").
 */
const QUOTED = /(?<![\p{L}\p{N}])'[^'\n]*'(?![\p{L}\p{N}])|"[^"\n]*"|\u201c[^\u201d\n]*\u201d|\u2018[^\u2019\n]*\u2019/gu;
/** Numbers, as they stand in text: 10, 1.75, 10,000, $20, 5%. */
const NUMBER = /[$€£¥]?\d+(?:[.,]\d+)*%?/gu;

/** A clause: its text as written (for a search of the clause on its own) and its tokens. */
export interface Clause {
  readonly text: string;
  readonly tokens: string[];
  /**
   * The clause tells what is already so rather than asking for a step: "I have set a daily alarm
   * for 7:30", "my flight was booked for Monday" (BACKGROUND): clause order places a tool there
   * only where no other clause names it (clause-order.ts clausePositions).
   */
  readonly background: boolean;
}

/**
 * Auxiliaries and adverbs of what has been done: a clause holding one recounts, it does not ask
 * ("have to" asks). English, as the chaining words are.
 */
const BACKGROUND = /\b(?:ha(?:ve|s|d)\b(?!\s+to\b)|was\b|were\b|already\b|previously\b|originally\b)/iu;

/** The clauses of a text in order, each tokenised once; parts without content words are dropped. */
export function clauseParts(text: string): Clause[] {
  const quoted = valueSpans(text);
  // A clause's parts, joined at the end: a long list of values joins one clause in linear time.
  const clauses: { texts: string[]; tokens: string[] }[] = [];
  let start = 0;
  const cut = (end: number): void => {
    const part = text.slice(start, end);
    const tokens = tokenize(part);
    if (tokens.length === 0) return;
    const previous = clauses[clauses.length - 1];
    if (previous !== undefined && onlyValues(part)) {
      previous.texts.push(part);
      for (const token of tokens) previous.tokens.push(token);
    } else {
      clauses.push({ texts: [part], tokens });
    }
  };
  // The separators come in order, as do the quoted spans: one pass over both.
  let span = 0;
  for (const match of text.matchAll(SEPARATOR)) {
    const at = match.index;
    const end = at + match[0].length;
    while (span < quoted.length && quoted[span + 1]! <= at) span += 2;
    const inQuotes = span < quoted.length && quoted[span]! < at;
    if (inQuotes || betweenDigits(text, at, match[0]) || withinSentence(text, at, match[0])) continue;
    cut(at);
    start = end;
  }
  cut(text.length);
  return clauses.map((clause) => {
    const text = clause.texts.join(' ');
    // A quoted value's words are not the request's: "analyze the sentiment of 'the best meal I
    // have had'" asks for a step.
    return { text, tokens: clause.tokens, background: BACKGROUND.test(text.replace(QUOTED, ' ')) };
  });
}

/** The tokens of each clause of clauseParts, in order. */
export function splitClauses(text: string): string[][] {
  return clauseParts(text).map((clause) => clause.tokens);
}

/**
 * [start, end) of each quoted value in `text`, in order. Quotes around the whole text (metatool
 * writes every request so) make it a quotation, not a value.
 */
function valueSpans(text: string): number[] {
  const first = text.length - text.trimStart().length;
  const last = text.trimEnd().length;
  const out: number[] = [];
  for (const match of text.matchAll(QUOTED)) {
    const end = match.index + match[0].length;
    if (match.index > first || end < last) out.push(match.index, end);
  }
  return out;
}

/** A single point or comma with a digit on each side: part of a number. */
function betweenDigits(text: string, at: number, separator: string): boolean {
  return (separator === '.' || separator === ',') && isDigit(text.charCodeAt(at - 1)) && isDigit(text.charCodeAt(at + 1));
}

/** A letter or digit right after a point: the point is inside a word (two code units, for a letter beyond the BMP). */
const DOTTED_START = /^[\p{L}\p{N}]/u;
/** What comes before the last point of a dotted abbreviation: `a.m` of `a.m.` */
const DOTTED_END = /(?:^|[^\p{L}\p{N}])\p{L}\.\p{L}$/u;
/** The sentence going on after a point: space, then a lower-case letter. */
const GOES_ON = /^\s+\p{Ll}/u;

/**
 * A single point that ends no sentence: inside a word (a letter or digit right after it), or
 * the last of a dotted abbreviation (`a.m.`) with the sentence going on in lower case after it.
 */
function withinSentence(text: string, at: number, separator: string): boolean {
  if (separator !== '.') return false;
  if (DOTTED_START.test(text.slice(at + 1, at + 3))) return true;
  return DOTTED_END.test(text.slice(Math.max(0, at - 4), at)) && GOES_ON.test(text.slice(at + 1, at + 8));
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** Whether a part has no words left once its quoted values and numbers are taken out. */
function onlyValues(part: string): boolean {
  return tokenize(part.replace(QUOTED, ' ').replace(NUMBER, ' ')).length === 0;
}
