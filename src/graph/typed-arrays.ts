/**
 * Growing typed arrays: the incremental indexes (capability outcomes, intent tokens, scratch rows)
 * append into typed arrays and double them when full, so appending n items copies O(n) in total.
 */
type Growable = Int32Array<ArrayBuffer> | Uint8Array<ArrayBuffer> | Float32Array<ArrayBuffer> | Float64Array<ArrayBuffer>;

/** A copy of `array` with room for `size` items; the new slots hold `fill` (default 0). */
export function grown<T extends Growable>(array: T, size: number, fill = 0): T {
  const next = new (array.constructor as new (n: number) => T)(size);
  next.set(array);
  if (fill !== 0) next.fill(fill, array.length);
  return next;
}
