/**
 * Field schemas shared by traces, tools and dataset records, so a tool name means the same thing
 * in a trace, a catalogue and a workflow file.
 */
import { z } from 'zod';
import { ToolgraphError } from './errors.js';
import { limitedString } from './issues.js';
import { MAX_FUTURE_MS, MAX_ID_LENGTH, MAX_INTENT_LENGTH, MAX_TEXT_LENGTH, MAX_TOOL_NAME_LENGTH } from './limits.js';

// C0 controls and DEL break logs, tables and line-based files; an unpaired surrogate cannot be
// encoded as UTF-8 and would come back from the store as U+FFFD, a different name. In `u` mode
// \p{Cs} matches only unpaired surrogates, so emoji pass.
const FORBIDDEN_IN_NAMES = /[\u0000-\u001f\u007f]|\p{Cs}/u;
// Bidirectional controls (embeddings, overrides and isolates U+202A-U+202E and U+2066-U+2069,
// the marks U+200E, U+200F and U+061C) reorder how a name is shown: `file_\u202eeteled` is
// displayed as `file_deleted`, another tool's name. A name never needs them: text in a
// right-to-left script is shown right to left without them.
const BIDI_CONTROL = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
// A name is blank unless it has a character that shows: not white space, not a format character
// (\p{Cf}: zero-width space and joiners, the byte-order mark, soft hyphen), not one Unicode
// says to display as nothing (variation selectors, Hangul fillers). A zero-width space alone is
// as empty as '' to whoever reads the name.
const VISIBLE = /[^\s\p{Cf}\p{Default_Ignorable_Code_Point}]/u;

function codePoint(char: string): string {
  return `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

function nameSchema(max: number): z.ZodString {
  return limitedString(max)
    .min(1)
    .refine((name) => name === '' || VISIBLE.test(name), { error: 'must not be blank (white space, zero-width or format characters only)' })
    .refine((name) => !FORBIDDEN_IN_NAMES.test(name), {
      error: 'must not contain control characters or unpaired surrogates',
    })
    .superRefine((name, ctx) => {
      const bidi = BIDI_CONTROL.exec(name);
      if (bidi !== null) {
        ctx.addIssue({ code: 'custom', message: `must not contain bidirectional control characters (${codePoint(bidi[0])} at ${bidi.index})` });
      }
    });
}

/**
 * A tool name: 1 to MAX_TOOL_NAME_LENGTH characters, not blank (zero-width characters alone are
 * blank), no control characters, no bidirectional controls. Any other text is fine
 * (`__proto__`, emoji, right-to-left scripts): names are data, never object keys. Every way a
 * tool name enters (catalogues, traces, capabilities, requests) goes through this schema.
 */
export const toolNameSchema = nameSchema(MAX_TOOL_NAME_LENGTH);

/** A parameter name, under the same rules as tool names. */
export const paramNameSchema = nameSchema(MAX_TOOL_NAME_LENGTH);

/** A caller-chosen id: non-empty, bounded. */
export const idSchema = limitedString(MAX_ID_LENGTH).min(1);

/** Short labels: domains, sources, parameter types, server names. May be empty. */
export const labelSchema = limitedString(MAX_ID_LENGTH);

/** Intent text. May be empty (unknown). */
export const intentSchema = limitedString(MAX_INTENT_LENGTH);

/** Free text: descriptions, step contents, summaries. */
export const textSchema = limitedString(MAX_TEXT_LENGTH);

/**
 * A boolean, also when written as the text "true" or "false" (any case, spaces around):
 * catalogues converted from other formats write `"required": "true"`. Other text is refused.
 */
export const looseBooleanSchema = z.preprocess(
  (value) => (typeof value === 'string' && /^\s*(true|false)\s*$/i.test(value) ? value.trim().toLowerCase() === 'true' : value),
  z.boolean(),
);

/** An ISO 8601 datetime with a time zone (`Z` or `±hh:mm`): a local time would be ambiguous. */
export const isoDatetimeSchema = z.iso.datetime({ offset: true });

/** Largest time a JavaScript Date can hold (ECMA-262 §21.4.1.1). */
const MAX_EPOCH_MS = 8.64e15;

/**
 * A point in time: an ISO 8601 datetime or epoch milliseconds (finite, not before 1970: negative
 * values are far more often a sentinel such as -1 than a real time).
 */
export const timestampSchema = z.union([isoDatetimeSchema, z.number().min(0).max(MAX_EPOCH_MS)], {
  error: 'expected an ISO 8601 datetime string or epoch milliseconds',
});

/** INVALID_INPUT naming `where` when `ms` is more than MAX_FUTURE_MS after `now` (epoch ms). */
export function assertNotFuture(ms: number, now: number, where: string): void {
  if (ms > now + MAX_FUTURE_MS) {
    throw new ToolgraphError('INVALID_INPUT', `${where}: expected a time at most a day after this machine's clock (${new Date(now).toISOString()})`);
  }
}

/**
 * A recorded time in epoch ms (a verdict's `at`): not before 1970, and not more than a day after
 * this machine's clock (assertNotFuture, read when the value is parsed).
 */
export const recordedTimeSchema = z
  .number()
  .min(0)
  .max(MAX_EPOCH_MS)
  .refine((ms) => ms <= Date.now() + MAX_FUTURE_MS, { error: "expected a time at most a day after this machine's clock" });

/** Milliseconds since the epoch for a value `timestampSchema` accepted. */
export function toEpochMs(value: string | number): number {
  return typeof value === 'number' ? value : Date.parse(value);
}
