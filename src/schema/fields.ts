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
const HAS_VISIBLE = /\S/u;

function nameSchema(max: number): z.ZodString {
  return limitedString(max)
    .min(1)
    .refine((name) => name === '' || HAS_VISIBLE.test(name), { error: 'must not be blank' })
    .refine((name) => !FORBIDDEN_IN_NAMES.test(name), {
      error: 'must not contain control characters or unpaired surrogates',
    });
}

/**
 * A tool name: 1 to MAX_TOOL_NAME_LENGTH characters, not blank, no control characters. Any other
 * text is fine (`__proto__`, emoji, right-to-left scripts): names are data, never object keys.
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
