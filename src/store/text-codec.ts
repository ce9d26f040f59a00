/**
 * Reversible encoding of strings for PostgreSQL `text` key columns.
 *
 * Why: JavaScript strings may hold NUL and unpaired surrogates, and the schemas allow them in
 * ids, domains and free text. PostgreSQL `text` rejects NUL, and an unpaired surrogate becomes
 * U+FFFD on its way to UTF-8, so two different ids would collide. Whole values are stored in
 * `json` columns (which keep `\u0000` and `\ud800` escapes verbatim); only the columns used as
 * keys or filters go through this codec. It is injective: `\` becomes `\\`, NUL `\0`, and an
 * unpaired surrogate `\uXXXX`; every other string, the common case, is stored as is.
 */

const NEEDS_ESCAPE = /[\\\u0000]|\p{Cs}/u;
const ESCAPE = /[\\\u0000]|\p{Cs}/gu;

export function encodeText(value: string): string {
  if (!NEEDS_ESCAPE.test(value)) return value;
  return value.replace(ESCAPE, (ch) => {
    if (ch === '\\') return '\\\\';
    if (ch === '\u0000') return '\\0';
    return `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

const UNESCAPE = /\\(\\|0|u[0-9a-f]{4})/g;

export function decodeText(value: string): string {
  if (!value.includes('\\')) return value;
  return value.replace(UNESCAPE, (_, code: string) => {
    if (code === '\\') return '\\';
    if (code === '0') return '\u0000';
    return String.fromCharCode(Number.parseInt(code.slice(1), 16));
  });
}
