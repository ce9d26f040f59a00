/**
 * Tokenizer shared by every text signal: tool documents, intents and queries must go through the
 * same function, or a query term can never meet the document term it means.
 *
 *   text -> NFKC -> words (runs of \p{L}\p{M}\p{N}) -> identifier parts -> lower case
 *        -> Latin diacritics folded -> drop stop words -> light stem
 *
 * - Identifier parts: `_ : . / -` and any other non-word character separate words already; inside
 *   a word, a lower-case letter or digit followed by an upper-case one starts a new part
 *   (`getUser` -> get user), and an upper-case run followed by upper+lower ends an acronym
 *   (`getHTTPResponse` -> get http response). When a word splits, its whole lower-cased form is
 *   kept as well (`YouTube` -> you tube youtube), because people write brand names both ways.
 * - Diacritics are folded on Latin letters only (`café` -> `cafe`, as Lucene's ASCIIFoldingFilter
 *   does for accents); combining marks of other scripts (Devanagari vowel signs) are letters' parts.
 * - Han and kana runs carry no spaces between words, so they are cut into overlapping character
 *   bigrams (a lone character stays a unigram), after Lucene's CJKBigramFilter.
 * - Stemming is Porter's (1980) step 1 (plurals, -ed, -ing, y -> i) and step 5 (final -e, -ll),
 *   with the Porter2 rules for -s and -ies, applied to ASCII letters only. The derivational steps
 *   2-4 are left out on purpose: they merge words a tool catalogue keeps apart (`general`,
 *   `generate`), and a lexical index over short descriptions loses more from such collisions than
 *   it gains.
 *
 * Complexity: O(length of text). Deterministic and locale-independent (`toLowerCase`, not
 * `toLocaleLowerCase`).
 *
 * References: M. F. Porter, "An algorithm for suffix stripping", Program 14(3), 1980;
 * M. F. Porter, "The English (Porter2) stemming algorithm", snowballstem.org;
 * Apache Lucene, WordDelimiterGraphFilter and CJKBigramFilter.
 */

/** Words: letters with their combining marks, and digits. Everything else separates. */
const WORD = /[\p{L}\p{M}\p{N}]+/gu;
/** Camel-case boundaries: `aB`, `1B`, and the end of an acronym `ABc`. */
const CAMEL_LOWER_UPPER = /([\p{Ll}\p{N}])(\p{Lu})/gu;
const CAMEL_ACRONYM = /(\p{Lu})(\p{Lu}\p{Ll})/gu;
/** Scripts written without spaces between words. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const UNSPACED_RUNS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+|[^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+/gu;
const ASCII_LOWER = /^[a-z]+$/;
const PLAIN_ASCII_WORD = /^[A-Za-z0-9][a-z0-9]*$/;
/** Diacritics on Latin letters (after NFD); marks of other scripts carry meaning and stay. */
const LATIN_DIACRITIC = /(\p{Script=Latin})\p{Mn}+/gu;
const NON_ASCII = /[^\x00-\x7f]/;

/**
 * A short English stop list: articles, pronouns, auxiliaries, prepositions, conjunctions and the
 * politeness words of requests ("please", "can you"). Kept short because tool descriptions use
 * words such as `get`, `find`, `list` and `help` as real signal.
 */
const STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'the', 'and', 'or', 'but', 'nor', 'if', 'then', 'else', 'so', 'than', 'too', 'very',
  'of', 'to', 'in', 'on', 'at', 'by', 'for', 'with', 'from', 'into', 'onto', 'about', 'as', 'per',
  'via', 'up', 'out', 'over', 'off',
  'is', 'am', 'are', 'was', 'were', 'be', 'been', 'being', 'do', 'does', 'did', 'doing', 'done',
  'has', 'have', 'had', 'having', 'will', 'would', 'shall', 'should', 'can', 'could', 'may',
  'might', 'must',
  'i', 'me', 'my', 'mine', 'myself', 'we', 'us', 'our', 'ours', 'you', 'your', 'yours', 'he',
  'him', 'his', 'she', 'her', 'hers', 'it', 'its', 'they', 'them', 'their', 'theirs',
  'this', 'that', 'these', 'those', 'there', 'here', 'what', 'which', 'who', 'whom', 'whose',
  'when', 'where', 'why', 'how',
  'some', 'any', 'each', 'all', 'both', 'such', 'own', 'same', 'other', 'also', 'just', 'only',
  'please', 'let', 'lets', 's', 't', 'd', 'll', 're', 've', 'm',
]);

/** Lower-cased words of `text` with camel-case parts split out, before stop words and stemming. */
function rawWords(text: string, out: string[]): void {
  // match() hands back the words as strings; matchAll built a match object per word.
  for (const word of text.normalize('NFKC').match(WORD) ?? []) rawWord(word, out);
}

/** One word of rawWords (a WORD match of NFKC text): itself lower-cased, or its parts. */
function rawWord(word: string, out: string[]): void {
  // Most words of English text are ASCII with at most a capital first letter: nothing to split
  // (a camel-case boundary needs a capital after another character) or fold.
  if (PLAIN_ASCII_WORD.test(word)) {
    out.push(word.toLowerCase());
    return;
  }
  if (UNSPACED.test(word)) {
    pushUnspaced(word, out);
    return;
  }
  const spaced = word.replace(CAMEL_LOWER_UPPER, '$1 $2').replace(CAMEL_ACRONYM, '$1 $2');
  const lower = fold(word);
  if (spaced === word) {
    out.push(lower);
    return;
  }
  for (const part of spaced.split(' ')) out.push(fold(part));
  out.push(lower);
}

/** Lower case, and Latin letters without diacritics (`Café` -> `cafe`, `İ` -> `i`). */
function fold(word: string): string {
  const lower = word.toLowerCase();
  if (!NON_ASCII.test(lower)) return lower;
  return lower.normalize('NFD').replace(LATIN_DIACRITIC, '$1').normalize('NFC');
}

/** Han/kana runs become overlapping bigrams; other runs inside the same word stay whole. */
function pushUnspaced(word: string, out: string[]): void {
  for (const match of word.matchAll(UNSPACED_RUNS)) {
    const run = match[0];
    if (!UNSPACED.test(run)) {
      out.push(fold(run));
      continue;
    }
    const chars = Array.from(run);
    if (chars.length === 1) {
      out.push(run);
      continue;
    }
    for (let i = 0; i + 1 < chars.length; i++) out.push(`${chars[i]}${chars[i + 1]}`);
  }
}

function normalise(words: readonly string[], out: string[]): void {
  for (const word of words) {
    if (STOP_WORDS.has(word)) continue;
    out.push(stem(word));
  }
}

/**
 * Names this tokenizer's output. Stored snapshots keep the intents' tokens under it
 * (intent-tokens.ts), so change it with any change to what `tokenize` returns: a snapshot
 * tokenised otherwise is then tokenised again rather than trusted.
 */
export const TOKENIZER_VERSION = 'tokenize-1';

/**
 * Tokens of free text: Unicode words, identifier parts, lower case, no stop words, light stem.
 * `tokenize('getHTTPResponse of users')` is `['get', 'http', 'respons', 'gethttprespons', 'user']`.
 */
export function tokenize(text: string): string[] {
  const known = MEMO.get(text);
  if (known !== undefined) return known.slice();
  const words: string[] = [];
  rawWords(text, words);
  const out: string[] = [];
  normalise(words, out);
  if (MEMO.size >= MEMO_SIZE) MEMO.clear();
  MEMO.set(text, out.slice());
  return out;
}

/**
 * The tokens of texts tokenised lately: the same request is tokenised by every model that reads
 * it (a fit reads each recorded intent in a dozen fold models, a DAG suggestion each clause in
 * several searches), and tokenize is pure. Bounded: emptied when full. Callers get copies.
 */
const MEMO = new Map<string, readonly string[]>();
const MEMO_SIZE = 20_000;

/**
 * `tokenize`, grouped by the word of `text` each token came from: an identifier such as
 * `CyJ9LBI7y` gives one group (`cy`, `j9`, `lbi7y`, `cyj9lbi7y`), a stop word none. A run of
 * Han or kana gives one group per bigram: written without spaces, a whole sentence is one run.
 * The groups, in order and concatenated, are `tokenize(text)`.
 */
export function tokenizeByWord(text: string): string[][] {
  const groups: string[][] = [];
  const raw: string[] = [];
  for (const word of text.normalize('NFKC').match(WORD) ?? []) {
    raw.length = 0;
    rawWord(word, raw);
    const tokens: string[] = [];
    normalise(raw, tokens);
    if (tokens.length === 0) continue;
    if (UNSPACED.test(word)) for (const token of tokens) groups.push([token]);
    else groups.push(tokens);
  }
  return groups;
}

/**
 * Tokens of an identifier such as a tool name (`clock_alarm_cancel`, `fs/readFile`,
 * `SkyScrapperFlightSearch`). Same pipeline as `tokenize`; a name made only of stop words
 * (a tool called `do` or `it`) keeps its words, so no tool ends up with an empty name.
 */
export function splitIdentifier(name: string): string[] {
  const words: string[] = [];
  rawWords(name, words);
  const out: string[] = [];
  normalise(words, out);
  if (out.length === 0) for (const word of words) out.push(stem(word));
  return out;
}

/**
 * Tokens of catalogue text (tool names, descriptions, parameters, capability documents),
 * remembered: every model build tokenises the whole catalogue and every capability's document
 * again, and those texts rarely change between builds (a profile of rebuilds at 10,000 tools put
 * 12% of their time in the tokenizer, most of it the same capability documents). Bounded: the
 * memory is emptied when it holds MEMO_LIMIT texts, so text that does not recur (intents,
 * queries: use `tokenize`) only costs a refill. The arrays are shared: read-only.
 */
export const MEMO_LIMIT = 1 << 16;
const textMemo = new Map<string, readonly string[]>();
const identifierMemo = new Map<string, readonly string[]>();

function remembered(memo: Map<string, readonly string[]>, text: string, split: (text: string) => string[]): readonly string[] {
  let tokens = memo.get(text);
  if (tokens === undefined) {
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(text, (tokens = split(text)));
  }
  return tokens;
}

/** `tokenize`, remembered: for catalogue text. */
export function catalogueTokens(text: string): readonly string[] {
  return remembered(textMemo, text, tokenize);
}

/** `splitIdentifier`, remembered: for tool and parameter names. */
export function identifierTokens(name: string): readonly string[] {
  return remembered(identifierMemo, name, splitIdentifier);
}

// ---------------------------------------------------------------------------------------------
// Light stemmer: Porter 1980 steps 1a, 1b, 1c and 5, with the Porter2 -s / -ies rules.

function isVowelAt(word: string, i: number): boolean {
  const c = word.charCodeAt(i);
  // a e i o u
  if (c === 97 || c === 101 || c === 105 || c === 111 || c === 117) return true;
  // y is a vowel after a consonant (Porter's definition).
  return c === 121 && i > 0 && !isVowelAt(word, i - 1);
}

/** Porter's measure m of `word[0, end)`: the number of vowel-consonant sequences. */
function measure(word: string, end: number): number {
  let m = 0;
  let i = 0;
  while (i < end && !isVowelAt(word, i)) i++;
  while (i < end) {
    while (i < end && isVowelAt(word, i)) i++;
    if (i >= end) break;
    m++;
    while (i < end && !isVowelAt(word, i)) i++;
  }
  return m;
}

function hasVowel(word: string, end: number): boolean {
  for (let i = 0; i < end; i++) if (isVowelAt(word, i)) return true;
  return false;
}

function endsDoubleConsonant(word: string): boolean {
  const n = word.length;
  return n >= 2 && word[n - 1] === word[n - 2] && !isVowelAt(word, n - 1);
}

/** Porter's *o: the stem ends consonant-vowel-consonant, the last not w, x or y (`hop`, `fil`). */
function endsCvc(word: string): boolean {
  const n = word.length;
  if (n < 3) return false;
  const last = word[n - 1];
  return (
    !isVowelAt(word, n - 1) && isVowelAt(word, n - 2) && !isVowelAt(word, n - 3) &&
    last !== 'w' && last !== 'x' && last !== 'y'
  );
}

function step1a(word: string): string {
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (word.endsWith('ied') || word.endsWith('ies')) {
    // Porter2: `ties` -> `tie`, `queries` -> `queri`.
    return word.length > 4 ? word.slice(0, -2) : word.slice(0, -1);
  }
  if (word.endsWith('ss') || word.endsWith('us')) return word;
  if (word.endsWith('s')) {
    // Porter2: drop -s only if a vowel occurs before the letter preceding it (`gas`, `this` stay;
    // `news` would become `new`, accepted as Porter does).
    return hasVowel(word, word.length - 2) ? word.slice(0, -1) : word;
  }
  return word;
}

function step1b(word: string): string {
  if (word.endsWith('eed')) return measure(word, word.length - 3) > 0 ? word.slice(0, -1) : word;
  let stem: string;
  if (word.endsWith('ed') && hasVowel(word, word.length - 2)) stem = word.slice(0, -2);
  else if (word.endsWith('ing') && hasVowel(word, word.length - 3)) stem = word.slice(0, -3);
  else return word;
  if (stem.endsWith('at') || stem.endsWith('bl') || stem.endsWith('iz')) return `${stem}e`;
  if (endsDoubleConsonant(stem)) {
    const last = stem[stem.length - 1];
    return last === 'l' || last === 's' || last === 'z' ? stem : stem.slice(0, -1);
  }
  if (measure(stem, stem.length) === 1 && endsCvc(stem)) return `${stem}e`;
  return stem;
}

function step1c(word: string): string {
  // y -> i after a consonant that is not the first letter (Porter2), so `query` meets `queries`.
  const n = word.length;
  if (n > 2 && word[n - 1] === 'y' && !isVowelAt(word, n - 2)) return `${word.slice(0, -1)}i`;
  return word;
}

function step5(word: string): string {
  let w = word;
  if (w.endsWith('e')) {
    const m = measure(w, w.length - 1);
    if (m > 1 || (m === 1 && !endsCvc(w.slice(0, -1)))) w = w.slice(0, -1);
  }
  if (w.endsWith('ll') && measure(w, w.length) > 1) w = w.slice(0, -1);
  return w;
}

/** Light stem of one lower-case word; words that are not plain ASCII letters pass unchanged. */
function stem(word: string): string {
  if (word.length <= 3 || !ASCII_LOWER.test(word)) return word;
  return step5(step1c(step1b(step1a(word))));
}
