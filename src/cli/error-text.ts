/**
 * How the CLI says an error: `toolgraph <command>: <file>[:<line>]: <CODE>: <what is wrong>`,
 * the file and line from the error's location (schema/errors.ts) when it has one, the stable
 * code, and the message without what only a library caller knows.
 *
 * Library messages begin with the call that raised them (`parseTrace: tools: expected array`),
 * and errors read from a file with the place (`traces.jsonl:2: parseTrace: ...`): both are
 * dropped here, once each, since the location is printed from data and the user called no
 * function. A call is a camelCase identifier (`parseTrace`, `openaiEmbedder.embed`), the
 * command's own name, or `toolgraph`; a field path after it (`tools: ...`, `steps[3].tool:
 * ...`) is what is wrong and stays.
 */
import type { ToolgraphError } from '../schema/errors.js';

const CALL = /^([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*): /;

function isCall(name: string, command: string): boolean {
  // camelCase, and for a method its object's: `openaiEmbedder.embed`; never a file name.
  return name === command || name === 'toolgraph' || /^[a-z]+[A-Z]/.test(name);
}

/** `file:line` or `file` of a location. */
export function locationText(error: ToolgraphError): string | undefined {
  const at = error.location;
  return at === undefined ? undefined : at.line !== undefined ? `${at.file}:${at.line}` : at.file;
}

/** The message without the leading location and call name (each at most once, in either order). */
export function reasonOf(error: ToolgraphError, command = ''): string {
  let text = error.message;
  const at = locationText(error);
  let located = false;
  let called = false;
  for (;;) {
    const prefix = at === undefined ? undefined : [`${at}: `, `${error.location!.file}: `].find((p) => text.startsWith(p));
    if (!located && prefix !== undefined) {
      text = text.slice(prefix.length);
      located = true;
      continue;
    }
    const call = CALL.exec(text);
    if (!called && call !== null && isCall(call[1]!, command)) {
      text = text.slice(call[0].length);
      called = true;
      continue;
    }
    return text;
  }
}

export function errorText(command: string, error: ToolgraphError): string {
  const at = locationText(error);
  return `toolgraph ${command}: ${at !== undefined ? `${at}: ` : ''}${error.code}: ${reasonOf(error, command)}`;
}
