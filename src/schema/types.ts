/**
 * Internal, already-validated shapes. Everything that crosses the boundary is parsed by the zod
 * schemas next to this file and normalised into these types; the computational core only ever
 * sees these.
 */

/** One tool call of a trace, in call order. `ok: false` marks a call that failed. */
export interface TraceStep {
  readonly tool: string;
  readonly ok: boolean;
}

/** A normalised tool-use trace: whatever format it arrived in. */
export interface Trace {
  readonly id: string;
  /**
   * 'caller' when the input carried its id (re-sending it is a retry: idempotent), 'content'
   * when the id is a hash of the content (two identical runs are two observations).
   */
  readonly idSource?: 'caller' | 'content';
  /** The task's objective in words; '' when unknown. */
  readonly intent: string;
  /** Task domain; '' when unknown. */
  readonly domain: string;
  readonly steps: readonly TraceStep[];
  /** Whether the task as a whole succeeded. */
  readonly success: boolean;
  /** Milliseconds since the epoch. */
  readonly timestamp: number;
}

export interface ToolParam {
  readonly name: string;
  readonly type: string;
  readonly description: string;
  readonly required: boolean;
}

/** A catalogue entry. A trace may name tools the catalogue lacks. */
export interface ToolInfo {
  readonly name: string;
  readonly description: string;
  readonly params: readonly ToolParam[];
  /**
   * Names of the fields the tool returns, when the catalogue says (MCP `outputSchema`, dataset
   * `output_parameters`): the data flow between tools that DAG suggestion reads.
   */
  readonly outputs?: readonly string[];
  /**
   * The named types of what the tool returns, when the catalogue says (an MCP `outputSchema`
   * property's `$ref` or object `title`): a tool returning an `Airport` feeds a parameter of
   * type `Airport` (data-flow.ts).
   */
  readonly outputTypes?: readonly string[];
}
