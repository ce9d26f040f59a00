/**
 * Tools newer than the model's snapshot, ranked by next-tool prediction and search from their
 * live transitions (recent-transitions.ts) and intent association (recent-intents.ts). A tool a
 * trace has just introduced has no row in the snapshot's arrays until the next rebuild, yet the
 * live counts already say how often it followed the context and which intents called it: it is
 * scored as a row with those signals and its live popularity, nothing else (no similar tasks,
 * PageRank or neighbourhood yet, as for a tool the model holds without them), and it joins the
 * softmax's normaliser, so the model's tools' probabilities make room for it. Scored in
 * newer-scores.ts.
 */

/** The newer tools one query's live counts reached, with their live signals. */
export class NewerTools {
  /** Live graph index of tool i, and its signals: P1 and its success count, P2, intent, popularity (set when scored). */
  tools = new Int32Array(4);
  transition = new Float64Array(4);
  count = new Float64Array(4);
  second = new Float64Array(4);
  intent = new Float64Array(4);
  popularity = new Float64Array(4);
  size = 0;

  /** Sets tool `c`'s first-order signal and success count, or (`second`) its second-order signal. */
  set(c: number, second: boolean, value: number, count: number): void {
    const i = this.slot(c);
    if (second) {
      this.second[i] = value;
    } else {
      this.transition[i] = value;
      this.count[i] = count;
    }
  }

  /** Sets tool `c`'s intent association (recent-intents.ts). */
  setIntent(c: number, value: number): void {
    // The slot first: finding it may grow the arrays, and `this.intent` read before would be the old one.
    const i = this.slot(c);
    this.intent[i] = value;
  }

  /** Whether tool `c` is held. */
  has(c: number): boolean {
    for (let i = 0; i < this.size; i++) if (this.tools[i] === c) return true;
    return false;
  }

  reset(): void {
    this.size = 0;
  }

  /** The entry of tool `c`, added with every signal 0 when new. */
  private slot(c: number): number {
    let i = 0;
    while (i < this.size && this.tools[i] !== c) i++;
    if (i === this.size) {
      this.reserve(i + 1);
      this.tools[i] = c;
      this.transition[i] = 0;
      this.count[i] = 0;
      this.second[i] = 0;
      this.intent[i] = 0;
      this.size++;
    }
    return i;
  }

  private reserve(n: number): void {
    if (n <= this.tools.length) return;
    const grow = <T extends Int32Array | Float64Array>(a: T, make: (size: number) => T): T => {
      const b = make(2 * n);
      b.set(a);
      return b;
    };
    this.tools = grow(this.tools, (size) => new Int32Array(size));
    this.transition = grow(this.transition, (size) => new Float64Array(size));
    this.count = grow(this.count, (size) => new Float64Array(size));
    this.second = grow(this.second, (size) => new Float64Array(size));
    this.intent = grow(this.intent, (size) => new Float64Array(size));
    this.popularity = grow(this.popularity, (size) => new Float64Array(size));
  }
}
