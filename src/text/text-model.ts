/**
 * The text side of a snapshot: a BM25 index over the catalogue (one document per tool index,
 * name-only for tools the catalogue lacks) and the intent-to-tool association learned from the
 * intents of recorded successful traces. Built once per snapshot, queried per request.
 */
import type { ToolInfo } from '../schema/types.js';
import type { IntentRecord } from '../graph/tool-graph.js';
import { buildBm25, type Bm25Index } from './bm25.js';
import { fitIntentAssociation, type IntentModel } from './intent-association.js';
import { buildIntentMemory, type IntentMemory } from './similar-intents.js';
import { splitIdentifier, tokenize } from './tokenize.js';
import { toolDocument } from './tool-document.js';

export interface TextModel {
  readonly bm25: Bm25Index;
  readonly intent: IntentModel;
  /** Tokens of each tool's name (splitIdentifier), for mention order. */
  readonly nameTokens: readonly (readonly string[])[];
  /** Past tasks by intent, for the similar-task signals. */
  readonly memory: IntentMemory;
  /** Number of training intents behind the association. */
  readonly intents: number;
}

export function buildTextModel(
  names: readonly string[],
  catalog: ReadonlyMap<string, ToolInfo>,
  intents: readonly IntentRecord[],
): TextModel {
  const docs = names.map((name) => toolDocument(catalog.get(name) ?? { name, description: '', params: [] }));
  const examples = intents.map((record) => ({ tokens: tokenize(record.intent), tools: record.tools }));
  return {
    bm25: buildBm25(docs),
    intent: fitIntentAssociation(names.length, examples),
    nameTokens: names.map((name) => [...new Set(splitIdentifier(name))]),
    memory: buildIntentMemory(intents.map((record) => record.sequence)),
    intents: intents.length,
  };
}
