/**
 * Stable fold assignment: FNV-1a (32-bit) over the id's UTF-16 code units, modulo K. The same
 * id lands in the same fold on every machine and run, whatever order records arrive in.
 */
export function stableHash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function foldOf(id: string, folds: number): number {
  return stableHash(id) % folds;
}
