/**
 * The text side of a snapshot: a BM25 index over the catalogue (one document per tool index,
 * name-only for tools the catalogue lacks) and the intent-to-tool association learned from the
 * intents of recorded successful traces. Built once per snapshot, queried per request.
 */
import { runStages } from '../graph/stages.js';
import type { ToolInfo } from '../schema/types.js';
import type { IntentRecord } from '../graph/transition-graph.js';
import { buildBm25, type Bm25Index } from './bm25.js';
import { countedAssociationStages, intentAssociationStages, type IntentModel } from './intent-association.js';
import { buildIntentMemory, type IntentMemory } from './similar-intents.js';
import { intentTokenIds } from './intent-tokens.js';
import { internIds } from './vocabulary.js';
import { identifierTokens } from './tokenize.js';
import type { TextEmbedding } from './text-embedding.js';
import { toolDocument } from './tool-document.js';
import { buildToolVectors, toolText, type PreviousToolVectors, type ToolVectors } from './tool-vectors.js';

export interface TextModel {
  readonly bm25: Bm25Index;
  readonly intent: IntentModel;
  /** Tokens of each tool's name (splitIdentifier), for mention order. */
  readonly nameTokens: readonly (readonly string[])[];
  /** Past tasks by intent, for the similar-task signals. */
  readonly memory: IntentMemory;
  /** Number of training intents behind the association. */
  readonly intents: number;
  /**
   * The recorded intents the memory was built from: records[0 .. intents), in memory's order.
   * The array is the graph's, which only appends after the build (clause-order.ts reads it).
   */
  readonly records: readonly IntentRecord[];
  /** The embedding behind the `embedding` signal and the tools' vectors, or null for none. */
  readonly embedding: TextEmbedding | null;
  readonly vectors: ToolVectors | null;
  /** Per tool, the text its vector was embedded from (tool-vectors.ts, toolText). */
  readonly texts: readonly string[];
}

/**
 * `previousVectors`: tool vectors of `embedding` from a stored snapshot (restoreToolVectors, or
 * adopted by an asynchronous embedder), whose rows are reused where the tool's text is
 * unchanged, when no earlier complete build of this catalogue has vectors to reuse.
 */
export function buildTextModel(
  names: readonly string[],
  catalog: ReadonlyMap<string, ToolInfo>,
  intents: readonly IntentRecord[],
  embedding: TextEmbedding | null = null,
  previousVectors: PreviousToolVectors | null = null,
): TextModel {
  return runStages(textModelStages(names, catalog, intents, embedding, previousVectors));
}

/**
 * buildTextModel as stages (runStages, stages.ts). Its first step reads everything it needs
 * from `catalog` and `intents`, so after it they may change (a service goes on learning between
 * the stages, Toolgraph.rebuildInSlices) and the model is the one of the records and tools as
 * they were then.
 */
export function* textModelStages(
  names: readonly string[],
  catalog: ReadonlyMap<string, ToolInfo>,
  intents: readonly IntentRecord[],
  embedding: TextEmbedding | null = null,
  previousVectors: PreviousToolVectors | null = null,
): Generator<void, TextModel> {
  const tools = names.map((name) => catalog.get(name) ?? { name, description: '', params: [] });
  // Intents as term ids straight from the token log (tokenised once per intent). Every record
  // credits a tool (TransitionGraph keeps no other), so the association's examples, the task memory
  // and `records` share one index, which the similar tasks rely on; a record without tools is
  // refused by the fit (INVALID_INPUT) rather than shifting them. The docs view the log's
  // arrays, which later records only append to (or replace): they stay as they are now.
  const tokens = intentTokenIds(intents);
  // The fit reads its examples in a later stage, by when the log may have grown: these ones.
  const examples = intents.slice();
  const sequences = intents.map((record) => record.sequence);
  yield;
  // The catalogue map is only the key of the last build's texts here: `tools` is what is read.
  const { bm25, nameTokens, vectors, texts } = yield* catalogueText(tools, catalog, embedding, previousVectors);
  yield;
  // Read now: the log's terms, and so their order, may have grown since the docs were taken.
  const order = tokens.order();
  const interned = internIds(tokens.terms, tokens.docs, order);
  yield;
  // Laid out from the counts the log keeps across builds where they serve; else fitted afresh.
  const counts = tokens.counts();
  const intent =
    counts !== null && !counts.refused && counts.maxTool < names.length
      ? yield* countedAssociationStages(names.length, counts, order, interned)
      : yield* intentAssociationStages(names.length, examples, interned);
  yield;
  return {
    bm25,
    intent,
    nameTokens,
    memory: buildIntentMemory(sequences),
    intents: sequences.length,
    records: intents,
    embedding,
    vectors,
    texts,
  };
}

/** The distinct terms of a tool's name (TextModel.nameTokens). */
export function toolNameTokens(name: string): string[] {
  return [...new Set(identifierTokens(name))];
}

/**
 * A model is rebuilt after every burst of traces, and most rebuilds change no tool's text. So
 * the catalogue's BM25 index, name tokens and tool vectors are kept between builds and reused
 * while every tool's name, description and parameters and the embedding are the same (checked
 * field by field, so an edit in place is seen) and no tool was waiting for its vector; the
 * tokens of catalogue text are remembered (tokenize.ts, catalogueTokens) for the builds that
 * do change it, such as a new tool seen in a trace.
 */
interface CatalogueText {
  /** Per tool, its fields as one unambiguous string. */
  readonly keys: readonly string[];
  /** Per tool, the text its vector is embedded from (tool-vectors.ts, toolText). */
  readonly texts: readonly string[];
  readonly embedding: TextEmbedding | null;
  readonly bm25: Bm25Index;
  readonly nameTokens: readonly (readonly string[])[];
  readonly vectors: ToolVectors | null;
}

/** The last catalogue text built for each catalogue (a service keeps one map for its lifetime). */
const catalogueTexts = new WeakMap<ReadonlyMap<string, ToolInfo>, CatalogueText>();

function* catalogueText(
  tools: readonly ToolInfo[],
  catalog: ReadonlyMap<string, ToolInfo>,
  embedding: TextEmbedding | null,
  previousVectors: PreviousToolVectors | null,
): Generator<void, CatalogueText> {
  const keys = tools.map((t) => JSON.stringify([t.name, t.description, t.params.map((p) => [p.name, p.description])]));
  const last = catalogueTexts.get(catalog);
  if (
    last !== undefined &&
    last.embedding === embedding &&
    (last.vectors === null || last.vectors.missing === 0) &&
    last.keys.length === keys.length &&
    last.keys.every((key, i) => key === keys[i])
  ) {
    return last;
  }
  const texts = tools.map((t) => toolText(t.name, t.description, t.params));
  // Tools whose text is unchanged keep their vector rows (new tools seen in traces are the usual change).
  // The last build's rows unless it still missed some (buildToolVectors would not reuse them).
  const previous =
    last !== undefined && last.embedding === embedding && last.vectors !== null && last.vectors.missing === 0
      ? { texts: last.texts, vectors: last.vectors }
      : (previousVectors ?? undefined);
  // The index and the vectors are the two halves of the work: a stage each.
  const bm25 = buildBm25(tools.map((tool) => toolDocument(tool)));
  yield;
  const built: CatalogueText = {
    keys,
    texts,
    embedding,
    bm25,
    nameTokens: tools.map((tool) => toolNameTokens(tool.name)),
    vectors: embedding === null ? null : buildToolVectors(texts, embedding, previous),
  };
  catalogueTexts.set(catalog, built);
  return built;
}
