/**
 * The CLI's option parsing (src/cli/options.ts): numbers are plain decimal text, and an action
 * that takes no word refuses one.
 */
import { describe, expect, it } from 'vitest';
import { decimalOption, intOption, noWordAfter } from '../../src/cli/options.js';
import { ToolgraphError } from '../../src/schema/errors.js';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof ToolgraphError ? error.code : 'not a ToolgraphError';
  }
  return undefined;
}

describe('intOption', () => {
  it('takes decimal digits in range, and the fallback when absent', () => {
    expect(intOption({ k: '7' }, 'k', 5)).toBe(7);
    expect(intOption({ k: '007' }, 'k', 5)).toBe(7);
    expect(intOption({ seed: '0' }, 'seed', 42, 0)).toBe(0);
    expect(intOption({}, 'k', 5)).toBe(5);
    expect(intOption({ port: '65535' }, 'port', 8080, 0, 65_535)).toBe(65_535);
  });

  it("refuses what Number() would have read as a number: '', blanks, hex, exponents, signs, fractions", () => {
    // Number('') and Number(' ') are 0, Number('0x10') is 16, Number('1e1') is 10.
    for (const raw of ['', ' ', '0x10', '1e1', '+3', '-1', '2.0', ' 3', 'Infinity', '99999999999999999999']) {
      expect(codeOf(() => intOption({ k: raw }, 'k', 5, 0)), JSON.stringify(raw)).toBe('INVALID_INPUT');
    }
    expect(() => intOption({ k: '' }, 'k', 5)).toThrow("--k: expected an integer >= 1, got ''");
    expect(() => intOption({ port: '65536' }, 'port', 8080, 0, 65_535)).toThrow("--port: expected an integer in [0, 65535], got '65536'");
  });
});

describe('decimalOption', () => {
  it('takes decimals in range, and undefined when absent', () => {
    expect(decimalOption({ threshold: '0.75' }, 'threshold', 0, 1)).toBe(0.75);
    expect(decimalOption({ threshold: '.5' }, 'threshold', 0, 1)).toBe(0.5);
    expect(decimalOption({ threshold: '1' }, 'threshold', 0, 1)).toBe(1);
    expect(decimalOption({}, 'threshold', 0, 1)).toBeUndefined();
  });

  it('refuses empty, non-decimal and out-of-range text, naming the option', () => {
    for (const raw of ['', ' ', '0x1', '5e-1', 'NaN', '.', '1.5', '-0.1']) {
      expect(codeOf(() => decimalOption({ threshold: raw }, 'threshold', 0, 1)), JSON.stringify(raw)).toBe('INVALID_INPUT');
    }
    expect(() => decimalOption({ threshold: '' }, 'threshold', 0, 1)).toThrow("--threshold: expected a number in [0, 1], got ''");
  });
});

describe('noWordAfter', () => {
  it('refuses a word after an action that takes none', () => {
    expect(() => noWordAfter('tools list', undefined)).not.toThrow();
    expect(codeOf(() => noWordAfter('tools list', 'extra'))).toBe('INVALID_INPUT');
    expect(() => noWordAfter('tools list', 'extra')).toThrow("too many arguments for 'tools list'");
  });
});
