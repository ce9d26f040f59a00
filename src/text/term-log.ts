/**
 * Terms numbered in the order they were first met, for documents kept as ids across index
 * builds (capability-carry.ts): an id never changes, so a document encoded once stays valid, and
 * the log keeps its terms' code-unit order up to date as it grows (extendOrder), so a build's
 * internIds renumbers without sorting the whole vocabulary again.
 */
import { extendOrder } from './vocabulary.js';

export class TermLog {
  readonly terms: string[] = [];
  // A Map, never a plain object: terms are untrusted ('__proto__', any Unicode).
  private readonly ids = new Map<string, number>();
  private sorted: Int32Array = new Int32Array(0);

  /** `tokens` as ids, new terms appended. */
  encode(tokens: readonly string[]): Int32Array {
    const out = new Int32Array(tokens.length);
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i]!;
      let id = this.ids.get(token);
      if (id === undefined) {
        id = this.terms.length;
        this.ids.set(token, id);
        this.terms.push(token);
      }
      out[i] = id;
    }
    return out;
  }

  /** Every id, in code-unit order of its term (internIds' `order`). */
  order(): Int32Array {
    this.sorted = extendOrder(this.terms, this.sorted);
    return this.sorted;
  }
}
