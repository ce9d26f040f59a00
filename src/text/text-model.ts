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
import type { TextEmbedding } from './text-embedding.js';
import { toolDocument } from './tool-document.js';
import { buildToolVectors, toolText, type ToolVectors } from './tool-vectors.js';

export interface TextModel {
  readonly bm25: Bm25Index;
  readonly intent: IntentModel;
  /** Tokens of each tool's name (splitIdentifier), for mention order. */
  readonly nameTokens: readonly (readonly string[])[];
  /** Past tasks by intent, for the similar-task signals. */
  readonly memory: IntentMemory;
  /** Number of training intents behind the association. */
  readonly intents: number;
  /** The embedding behind the `embedding` signal and the tools' vectors, or null for none. */
  readonly embedding: TextEmbedding | null;
  readonly vectors: ToolVectors | null;
}

export function buildTextModel(
  names: readonly string[],
  catalog: ReadonlyMap<string, ToolInfo>,
  intents: readonly IntentRecord[],
  embedding: TextEmbedding | null = null,
): TextModel {
  const tools = names.map((name) => catalog.get(name) ?? { name, description: '', params: [] });
  const docs = tools.map((tool) => toolDocument(tool));
  const examples = intents.map((record) => ({ tokens: tokenize(record.intent), tools: record.tools }));
  return {
    bm25: buildBm25(docs),
    intent: fitIntentAssociation(names.length, examples),
    nameTokens: names.map((name) => [...new Set(splitIdentifier(name))]),
    memory: buildIntentMemory(intents.map((record) => record.sequence)),
    intents: intents.length,
    embedding,
    vectors: embedding === null ? null : buildToolVectors(tools.map((t) => toolText(t.name, t.description, t.params)), embedding),
  };
}
