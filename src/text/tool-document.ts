/**
 * The lexical document of one tool, for the BM25 index: the tokens of its split name, its
 * description, its parameter names and its parameter descriptions.
 *
 *   doc(tool) = nameWeight x tokens(name) ++ tokens(description)
 *               ++ for each param: tokens(param name) ++ tokens(param description)
 *
 * Field weighting by repetition is the cheap form of BM25F (Robertson et al. 2004): repeating a
 * field w times multiplies its term frequencies by w before saturation. The name is repeated
 * because it is the one field every tool has and the one its author chose words for; a tool with
 * no catalogue entry is a document of its name only.
 *
 * Complexity: O(length of the tool's text).
 *
 * Reference: S. Robertson, H. Zaragoza, M. Taylor, "Simple BM25 extension to multiple weighted
 * fields", CIKM 2004.
 */
import type { ToolInfo } from '../schema/types.js';
import { splitIdentifier, tokenize } from './tokenize.js';

export interface ToolDocumentOptions {
  /** Times the name's tokens are repeated; an integer >= 1. Default 2. */
  readonly nameWeight?: number;
  /** Whether parameter descriptions are included. Default true. */
  readonly paramDescriptions?: boolean;
}

export function toolDocument(tool: ToolInfo, options: ToolDocumentOptions = {}): string[] {
  const nameWeight = options.nameWeight ?? 2;
  const paramDescriptions = options.paramDescriptions ?? true;
  const doc: string[] = [];
  const name = splitIdentifier(tool.name);
  for (let r = 0; r < nameWeight; r++) for (const token of name) doc.push(token);
  for (const token of tokenize(tool.description)) doc.push(token);
  for (const param of tool.params) {
    for (const token of splitIdentifier(param.name)) doc.push(token);
    if (paramDescriptions) for (const token of tokenize(param.description)) doc.push(token);
  }
  return doc;
}
