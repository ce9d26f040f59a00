/**
 * Documented input limits, enforced at the boundary (trace ingestion, catalogues, dataset files).
 *
 * Why limits at all: every accepted trace and tool ends up in the graph, the text index and the
 * store; one oversized payload must not be able to exhaust memory, blow the stack of a recursive
 * walk, or make a query slow for everyone. The values are generous: the largest public dataset
 * we evaluate on stays two orders of magnitude below each of them.
 *
 * Exceeding any limit below throws `ToolgraphError('PAYLOAD_TOO_LARGE', ...)` naming the field
 * path and the limit (the HTTP layer maps it to 413). Everything else that is wrong with an input
 * is `INVALID_INPUT`. Lengths are counted as JavaScript `String.length` (UTF-16 code units): an
 * emoji outside the BMP counts as 2.
 */

/** Tool (and parameter) name length. Long generated names (namespaced MCP tools) must still work. */
export const MAX_TOOL_NAME_LENGTH = 1_024;

/** Steps of one ReasoningTrace, tools of one compact trace, tools of one workflow record. */
export const MAX_TRACE_STEPS = 10_000;

/** Intent text: a ReasoningTrace's `task.objective`, a compact trace's or workflow's `intent`. */
export const MAX_INTENT_LENGTH = 65_536;

/** Other free text: step content, summaries, tool and parameter descriptions (64 Ki). */
export const MAX_TEXT_LENGTH = 65_536;

/** Ids, domains, and short labels (parameter types, sources, MCP server names). */
export const MAX_ID_LENGTH = 1_024;

/** Tools in one catalogue (`parseCatalog`, a dataset's tools.jsonl). */
export const MAX_CATALOG_TOOLS = 100_000;

/** Parameters of one tool. */
export const MAX_TOOL_PARAMS = 1_000;

/** Dependency edges of one workflow record. */
export const MAX_WORKFLOW_EDGES = 100_000;

/**
 * Nesting of any JSON value we accept (objects and arrays; the root is level 1). Bounds the
 * recursion of every walk over the value (validation, canonical hashing), and rejects cyclic
 * JavaScript objects, which would otherwise nest forever.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * How far after this machine's clock a recorded time (a trace's, a verdict's) may be, in ms.
 * Time decay measures every age from the newest time the graph has seen, so one trace dated
 * years ahead made every other observation look ancient and deprecated every pattern, for good
 * once stored. A day covers any clock skew between the hosts that record traces.
 */
export const MAX_FUTURE_MS = 86_400_000;

/**
 * Longest group-commit window, in ms (service/group-commit.ts): the issue's bound on how long an
 * ingestion may wait for others to share its commit. Here so the options' schema (options.ts)
 * needs nothing outside schema/ at run time.
 */
export const MAX_BATCH_WINDOW_MS = 100;

/** One line of a JSONL file, in characters. */
export const MAX_JSONL_LINE_LENGTH = 8 * 1_024 * 1_024;

/**
 * One line of `toolgraph mcp`'s stdin (one JSON-RPC message), in bytes: 10 MiB, the MCP SDK's
 * own bound on what its stdio transport buffers. A longer line is answered with an error and
 * skipped (service/mcp/stdio.ts).
 */
export const MAX_MCP_LINE_BYTES = 10 * 1_024 * 1_024;
