/**
 * Data flow between tools, from what catalogues declare: tool A can feed tool B when a field A
 * returns names a parameter B takes. Names are compared case-insensitively, with separators
 * removed, and a parameter matches when it is the output's name or ends with it
 * (`originSkyId` takes `skyId`, `geo_id` takes `geoId`). A suffix must be at least
 * MIN_SUFFIX characters, so a generic `id` output does not feed every `*Id` parameter.
 *
 * Types count too: where a catalogue names the type of what a tool returns and of what another
 * takes (an MCP schema's `$ref` to a definition, an object schema's `title`: `Airport`,
 * `Booking`), a tool returning an `Airport` feeds a parameter of type `Airport` whatever their
 * names. Only named types: a `string` or an `object` says nothing about where the value comes
 * from (schema/type-names.ts). No dataset in ../shared/data declares output types, so its figures do not
 * move; an MCP server whose schemas come from typed models (pydantic's `$defs`) does.
 *
 * Only what B needs counts: its required parameters, where its catalogue entry marks any as
 * required (else all, as for a catalogue that does not say). An optional one is filled when a
 * value is at hand, so it says nothing about what must run first: a house booking that returns
 * the `rating` a house search may filter by does not have to run before the search. Decided on
 * train's held-out quarter (`eval dag --validation`, NESTFUL, the one catalogue with outputs:
 * edge-F1 0.524 -> 0.541, and 0.421 -> 0.430 in five folds of train; node-F1 unchanged).
 *
 * Also here: the flow a request states by naming an output (namedFlows), and what a tool needs
 * that only another tool can give, an identifier, with the tools that return it
 * (lookupParams, outputIndex, toolsFeeding; choose-tools.ts adds those look-ups).
 */
import { isTypeName } from '../../schema/type-names.js';
import type { ToolInfo, ToolParam } from '../../schema/types.js';
import { tokenize } from '../../text/tokenize.js';

export const MIN_SUFFIX = 4;

function key(name: string): string {
  return name.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}

/**
 * A declared type's key where it is a type name (isTypeName), else null. Never equal to a
 * name's key (key() leaves no ':'), and matched exactly, not by suffix (`Airport` does not feed
 * `port`).
 */
function typeKey(type: string): string | null {
  return isTypeName(type) ? `:${key(type)}` : null;
}

/** What a parameter is matched on: its name's key, and its type's where that is a type name. */
function paramKeys(param: ToolParam): string[] {
  const type = typeKey(param.type);
  return type === null ? [key(param.name)] : [key(param.name), type];
}

/**
 * Whether one normalised output (outputKeys) supplies a parameter's key (paramKeys,
 * lookupParams): a name by name (outputFeeds), a type's key exactly.
 */
export function supplies(output: string, param: string): boolean {
  return output.startsWith(':') || param.startsWith(':') ? output === param : outputFeeds(output, param);
}

/**
 * Normalised output names of a tool, then the keys of the type names it returns, for repeated
 * matching. A field the tool also takes as a parameter is an echo (`country` in, `country` out),
 * not something it produces: left out, or every pair of tools sharing a locale parameter would
 * look like a dependency both ways. So is a type it also takes (a booking changed is not a
 * booking made).
 */
export function outputKeys(tool: ToolInfo | undefined): string[] {
  const names = producedOutputs(tool).map(key);
  if (tool?.outputTypes === undefined) return names;
  const taken = new Set(tool.params.map((p) => typeKey(p.type)));
  const types = new Set(tool.outputTypes.map(typeKey));
  return [...names, ...[...types].filter((t): t is string => t !== null && !taken.has(t))];
}

/** The outputs a tool declares as written, less those it also takes (echoes) and those with no letter or digit. */
function producedOutputs(tool: ToolInfo | undefined): string[] {
  if (tool === undefined) return [];
  const inputs = new Set(tool.params.map((p) => key(p.name)));
  return (tool.outputs ?? []).filter((output) => {
    const k = key(output);
    return k !== '' && !inputs.has(k);
  });
}

/** The parameters a tool needs: its required ones, or all when it marks none as required. */
export function neededParams(tool: ToolInfo): readonly ToolParam[] {
  const required = tool.params.filter((p) => p.required);
  return required.length > 0 ? required : tool.params;
}

/** Whether any output of `producer` (normalised by outputKeys) names a parameter `consumer` needs. */
export function feeds(producerOutputs: readonly string[], consumer: ToolInfo | undefined): boolean {
  if (consumer === undefined || producerOutputs.length === 0) return false;
  for (const param of neededParams(consumer)) {
    const keys = paramKeys(param);
    for (const o of producerOutputs) if (keys.some((k) => supplies(o, k))) return true;
  }
  return false;
}

/** Whether one normalised output name feeds a parameter name (the same, or a suffix of MIN_SUFFIX or more). */
export function outputFeeds(output: string, param: string): boolean {
  return param === output || (output.length >= MIN_SUFFIX && param.endsWith(output));
}

/**
 * Which earlier steps feed `consumer`: each parameter it needs that some step's outputs name
 * takes the earliest such step not already feeding another of its parameters (two airport
 * lookups feed a flight search's origin and destination), else the earliest; a step that
 * only offers what an earlier one already gave is not a producer. Indices into `outputs`.
 */
export function producers(outputs: readonly (readonly string[])[], consumer: ToolInfo | undefined): number[] {
  if (consumer === undefined) return [];
  const chosen: number[] = [];
  for (const param of neededParams(consumer)) {
    const keys = paramKeys(param);
    let first = -1;
    let fresh = -1;
    for (let i = 0; i < outputs.length && fresh < 0; i++) {
      if (!outputs[i]!.some((o) => keys.some((k) => supplies(o, k)))) continue;
      if (first < 0) first = i;
      if (!chosen.includes(i)) fresh = i;
    }
    const pick = fresh >= 0 ? fresh : first;
    if (pick >= 0 && !chosen.includes(pick)) chosen.push(pick);
  }
  return chosen.sort((a, b) => a - b);
}

/**
 * The words of each output a tool declares and does not also take (outputKeys' echo rule), one
 * token list per output: what a request says when it names that output.
 */
export function outputWords(tool: ToolInfo | undefined): string[][] {
  return producedOutputs(tool)
    .map((output) => tokenize(output))
    .filter((tokens) => tokens.length > 0);
}

/**
 * Data flow the request states: a tool takes the output of another when its clause of the
 * request names that output, every word of it, and the other tool belongs to another clause
 * ("calculate the profit ..., then convert the profit from USD to EUR": `calculate_profit`
 * returns `profit`; "translate ... and send the translated text": `translated_text`). Catalogues
 * name outputs and parameters differently (`profit` feeds `amount`), so the names alone
 * (producers) found 94 of the 296 edges of NESTFUL's training workflows; where a request names
 * the output it takes, it says the flow itself. Decided on train's held-out quarter and five
 * folds of train (docs/decisions/dag/outputs-the-request-names.md).
 *
 * `outputs[t]`: tool t's outputWords; `clauseOf[t]`: the request clause holding tool t
 * (clause-order.ts clausePositions), -1 for none; `clauses`: each clause's tokens. Returns the
 * pairs [producer, consumer] of indices into `outputs`. O(tools^2 x words).
 */
export function namedFlows(
  outputs: readonly (readonly (readonly string[])[])[],
  clauseOf: ArrayLike<number>,
  clauses: readonly (readonly string[])[],
): [number, number][] {
  const pairs: [number, number][] = [];
  const said = clauses.map((tokens) => new Set(tokens));
  for (let consumer = 0; consumer < outputs.length; consumer++) {
    const c = clauseOf[consumer]!;
    if (c < 0) continue;
    const words = said[c]!;
    for (let producer = 0; producer < outputs.length; producer++) {
      if (producer === consumer || clauseOf[producer] === c) continue;
      if (outputs[producer]!.some((output) => output.every((w) => words.has(w)))) pairs.push([producer, consumer]);
    }
  }
  return pairs;
}

/**
 * The needed parameters of a tool that only another tool can supply, normalised: identifiers,
 * those whose name's last word is `id` (`artistId`, `geo_id`, `originSkyId`), and those of a type
 * name (their type's key: an `Airport` comes from a tool that returns one). A request names an
 * artist or a city, not its id; the id comes from a tool that returns it.
 */
export function lookupParams(tool: ToolInfo): string[] {
  const ids: string[] = [];
  for (const param of neededParams(tool)) {
    const type = typeKey(param.type);
    const words = param.name.replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2').split(/[^\p{L}\p{N}]+/u);
    if (type !== null) ids.push(type);
    else if (words[words.length - 1]?.toLowerCase() === 'id') ids.push(key(param.name));
  }
  return ids;
}

/**
 * Tools by each normalised output they return (outputKeys), ascending, to find what feeds a
 * parameter. O(outputs): an output many tools return (`status`) is one list, built in order.
 */
export function outputIndex(outputs: readonly (readonly string[])[]): Map<string, number[]> {
  const index = new Map<string, number[]>();
  outputs.forEach((keys, tool) => {
    for (const k of keys) {
      let tools = index.get(k);
      if (tools === undefined) index.set(k, (tools = []));
      // Tools come in order: a repeated output of this tool is the list's last entry.
      if (tools[tools.length - 1] !== tool) tools.push(tool);
    }
  });
  return index;
}

/**
 * The tools of `index` that return what a normalised parameter takes (its name, or a suffix of
 * MIN_SUFFIX or more; a type's key exactly), ascending.
 */
export function toolsFeeding(index: ReadonlyMap<string, readonly number[]>, param: string): number[] {
  if (param.startsWith(':')) return [...(index.get(param) ?? [])];
  const tools = new Set(index.get(param));
  for (let i = 1; i + MIN_SUFFIX <= param.length; i++) for (const t of index.get(param.slice(i)) ?? []) tools.add(t);
  return [...tools].sort((a, b) => a - b);
}
