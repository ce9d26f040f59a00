import { describe, expect, it } from 'vitest';
import { decodeText, encodeText } from '../../src/store/text-codec.js';

// Strings that collide under naive handling: NUL vs its escape, a lone surrogate vs U+FFFD,
// and backslashes that look like escapes.
const TRICKY = ['', 'plain', 'a\u0000b', 'a\\0b', 'a\\\\0b', '\ud800', '\udc00', '\ufffd', '\\ud800', '🛠️', '\ud83d', 'x\\', '\\'];

describe('text codec for key columns', () => {
  it('round-trips and stays injective', () => {
    const encoded = TRICKY.map(encodeText);
    expect(encoded.map(decodeText)).toEqual(TRICKY);
    expect(new Set(encoded).size).toBe(TRICKY.length);
  });

  it('leaves ordinary text alone and emits no NUL or lone surrogate', () => {
    expect(encodeText('plain 🛠️ أداة __proto__')).toBe('plain 🛠️ أداة __proto__');
    for (const value of TRICKY.map(encodeText)) expect(value).not.toMatch(/\u0000|\p{Cs}/u);
  });
});
