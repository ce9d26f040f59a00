/**
 * The built-in embedder: feature hashing of word and character n-grams into a fixed number of
 * dimensions, L2-normalised. Deterministic, no model, no download: the zero-set-up default.
 *
 *   words    = tokenize(text)                         (tokenize.ts: stems, no stop words)
 *   W[b(f)] += s(f)   for every word f and every pair of adjacent words f = (w_i, w_i+1)
 *   G[b(f)] += s(f)   for every character n-gram f, minN <= n <= maxN, of every lower-cased
 *                     word written `<word>` (fastText's boundary marks, so prefixes and suffixes
 *                     are features of their own)
 *   v        = normalise(wordWeight * W / |W| + charWeight * G / |G|)
 *
 *   h(f) = fmix32(FNV-1a(seed, namespace, f)),  b(f) = floor(h * d / 2^32),  s(f) = h odd ? -1 : +1
 *
 * Why signed hashing: colliding features cancel in expectation instead of adding up, so the inner
 * product of two hashed vectors is an unbiased estimate of the true one and unrelated texts sit
 * near cosine 0, not at a positive floor set by collisions (Weinberger et al.). Why two blocks,
 * each normalised before they are mixed: a text has several times more character n-grams than
 * words, and without it the character block would drown the words. Word features capture topic;
 * character n-grams survive typos, inflections and identifiers (`get_user` vs `getUsers`).
 *
 * Only the first maxChars UTF-16 code units are read, which bounds the cost of one call. An empty
 * text (or one with no letters or digits) is the zero vector: cosine 0 to everything.
 *
 * Complexity: O(m * (minN + ... + maxN) + d) per text, m = min(length, maxChars): each n-gram is
 * hashed from its n code units. Output: d floats.
 *
 * References: K. Weinberger, A. Dasgupta, J. Langford, A. Smola, J. Attenberg, "Feature Hashing for
 * Large Scale Multitask Learning", ICML 2009; P. Bojanowski, E. Grave, A. Joulin, T. Mikolov,
 * "Enriching Word Vectors with Subword Information", TACL 5, 2017 (character n-grams with
 * boundary marks); G. Fowler, L. C. Noll, K.-P. Vo, FNV hash; A. Appleby, MurmurHash3 fmix32.
 */
import { ToolgraphError } from '../schema/errors.js';
import { HASHED_MAX_DIMENSIONS as MAX_DIMENSIONS, HASHED_MAX_NGRAM as MAX_NGRAM, hashedEmbedderOptionsSchema, type HashedEmbedderOptions } from '../schema/factory-options.js';
import { parseWith } from '../schema/issues.js';
import type { Embedder } from './embedder.js';
import { tokenize } from './tokenize.js';

export type { HashedEmbedderOptions } from '../schema/factory-options.js';

export const HASHED_EMBEDDER_DEFAULTS = {
  dimensions: 384,
  minN: 3,
  maxN: 5,
  wordWeight: 1,
  charWeight: 1,
  maxChars: 32_768,
  seed: 0,
} as const;

interface Resolved {
  readonly dimensions: number;
  readonly minN: number;
  readonly maxN: number;
  readonly wordWeight: number;
  readonly charWeight: number;
  readonly maxChars: number;
  readonly seed: number;
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const NS_WORD = 1;
const NS_BIGRAM = 2;
const NS_CHAR = 3;
/** Separates the two words of a bigram, so (`ab`, `c`) and (`a`, `bc`) differ. */
const PAIR_SEPARATOR = 0x1f;
const LT = 0x3c; // '<'
const GT = 0x3e; // '>'
const TWO_POW_32 = 4_294_967_296;

const RAW_WORD = /[\p{L}\p{M}\p{N}]+/gu;

function invalid(caller: string, message: string): ToolgraphError {
  return new ToolgraphError('INVALID_INPUT', `${caller}: ${message}`);
}

function intIn(caller: string, name: string, value: number, min: number, max: number): number {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw invalid(caller, `expected ${name} to be an integer in [${min}, ${max}], got ${String(value)}`);
  }
  return value;
}

function weight(caller: string, name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) {
    throw invalid(caller, `expected ${name} to be a finite number >= 0, got ${String(value)}`);
  }
  return value;
}

function resolve(options: HashedEmbedderOptions, caller: string): Resolved {
  const d = HASHED_EMBEDDER_DEFAULTS;
  const minN = intIn(caller, 'minN', options.minN ?? d.minN, 1, MAX_NGRAM);
  const resolved: Resolved = {
    dimensions: intIn(caller, 'dimensions', options.dimensions ?? d.dimensions, 1, MAX_DIMENSIONS),
    minN,
    maxN: intIn(caller, 'maxN', options.maxN ?? d.maxN, minN, MAX_NGRAM),
    wordWeight: weight(caller, 'wordWeight', options.wordWeight ?? d.wordWeight),
    charWeight: weight(caller, 'charWeight', options.charWeight ?? d.charWeight),
    maxChars: intIn(caller, 'maxChars', options.maxChars ?? d.maxChars, 1, Number.MAX_SAFE_INTEGER),
    seed: intIn(caller, 'seed', options.seed ?? d.seed, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
  };
  if (resolved.wordWeight === 0 && resolved.charWeight === 0) {
    throw invalid(caller, 'expected wordWeight or charWeight to be > 0, got both 0');
  }
  return resolved;
}

function fnvString(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME);
  return h;
}

/** MurmurHash3's finaliser: FNV-1a alone mixes its last characters poorly into the high bits. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function addFeature(out: Float64Array, hash: number): void {
  const h = fmix32(hash);
  // Lemire's multiply-shift range reduction: exact in doubles since h * d < 2^53.
  const bucket = Math.floor((h * out.length) / TWO_POW_32);
  out[bucket]! += (h & 1) === 1 ? -1 : 1;
}

function wordFeatures(words: readonly string[], start: number, out: Float64Array): void {
  const word0 = Math.imul(start ^ NS_WORD, FNV_PRIME);
  const pair0 = Math.imul(start ^ NS_BIGRAM, FNV_PRIME);
  for (let i = 0; i < words.length; i++) {
    addFeature(out, fnvString(word0, words[i]!));
    if (i + 1 < words.length) {
      const left = Math.imul(fnvString(pair0, words[i]!) ^ PAIR_SEPARATOR, FNV_PRIME);
      addFeature(out, fnvString(left, words[i + 1]!));
    }
  }
}

/** Code unit `p` of `<word>` without building the string. */
function markedAt(word: string, p: number): number {
  if (p === 0) return LT;
  if (p === word.length + 1) return GT;
  return word.charCodeAt(p - 1);
}

function charFeatures(text: string, options: Resolved, start: number, out: Float64Array): void {
  const char0 = Math.imul(start ^ NS_CHAR, FNV_PRIME);
  for (const match of text.normalize('NFKC').toLowerCase().matchAll(RAW_WORD)) {
    const word = match[0];
    const length = word.length + 2;
    for (let n = options.minN; n <= options.maxN && n <= length; n++) {
      // Mixing n in keeps the n-grams of different lengths apart even when their code units agree.
      const base = Math.imul(char0 ^ n, FNV_PRIME);
      for (let i = 0; i + n <= length; i++) {
        let h = base;
        for (let k = i; k < i + n; k++) h = Math.imul(h ^ markedAt(word, k), FNV_PRIME);
        addFeature(out, h);
      }
    }
  }
}

function norm(v: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  return Math.sqrt(sum);
}

// The two feature blocks, reused by every call (cleared first): a typed array of a few KB lives
// outside the JavaScript heap, and allocating two per text made allocation and the collections
// it triggers a third of the cost of embedding a catalogue.
let scratch = { words: new Float64Array(0), chars: new Float64Array(0) };

function embedResolved(text: string, options: Resolved): Float32Array {
  const d = options.dimensions;
  const source = text.length > options.maxChars ? text.slice(0, options.maxChars) : text;
  const start = (FNV_OFFSET ^ options.seed) | 0;
  if (scratch.words.length !== d) scratch = { words: new Float64Array(d), chars: new Float64Array(d) };
  const { words, chars } = scratch;
  words.fill(0);
  chars.fill(0);
  if (options.wordWeight > 0) wordFeatures(tokenize(source), start, words);
  if (options.charWeight > 0) charFeatures(source, options, start, chars);
  const wordNorm = norm(words);
  const charNorm = norm(chars);
  const a = wordNorm > 0 ? options.wordWeight / wordNorm : 0;
  const c = charNorm > 0 ? options.charWeight / charNorm : 0;
  for (let i = 0; i < d; i++) words[i] = a * words[i]! + c * chars[i]!;
  const total = norm(words);
  const out = new Float32Array(d);
  if (total === 0) return out;
  for (let i = 0; i < d; i++) out[i] = words[i]! / total;
  return out;
}

/**
 * The hashed embedding of `text`: a unit-length Float32Array of `dimensions` values, or all zeros
 * when the text has no letters or digits. Throws INVALID_INPUT for options out of range.
 */
export function hashedEmbedding(text: string, options: HashedEmbedderOptions = {}): Float32Array {
  if (typeof text !== 'string') throw invalid('hashedEmbedding', `expected text to be a string, got ${typeof text}`);
  return embedResolved(text, resolve(options, 'hashedEmbedding'));
}

/**
 * An Embedder over hashedEmbedding, options checked once here (INVALID_INPUT). Its embed rejects
 * with INVALID_INPUT unless given an array of strings.
 */
export function createHashedEmbedder(options: HashedEmbedderOptions = {}): Embedder {
  // The schema refuses null, unknown keys and wrong types; resolve() then checks the crossed bounds.
  const resolved = resolve(parseWith(hashedEmbedderOptionsSchema, options, 'createHashedEmbedder'), 'createHashedEmbedder');
  return {
    dimensions: resolved.dimensions,
    name: `hashed-${resolved.dimensions}`,
    embed(texts: readonly string[]): Promise<Float32Array[]> {
      if (!Array.isArray(texts)) {
        return Promise.reject(invalid('hashedEmbedder.embed', 'expected texts to be an array of strings'));
      }
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i++) {
        const text: unknown = texts[i];
        if (typeof text !== 'string') {
          return Promise.reject(invalid('hashedEmbedder.embed', `expected texts[${i}] to be a string, got ${typeof text}`));
        }
        out.push(embedResolved(text, resolved));
      }
      return Promise.resolve(out);
    },
  };
}
