/**
 * The dashboard's client of the `/v1` API (docs/http.md), on the page's own origin. Reads are
 * open; writes carry the bearer token the person typed (kept in this browser's session storage),
 * and a 401 says so. The shapes below are the fields the views read, not the whole answers.
 */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const TOKEN_KEY = 'toolgraph.token';

export function token(): string {
  return sessionStorage.getItem(TOKEN_KEY) ?? '';
}

export function setToken(value: string): void {
  if (value === '') sessionStorage.removeItem(TOKEN_KEY);
  else sessionStorage.setItem(TOKEN_KEY, value);
}

async function request(method: string, path: string, body?: unknown, write = false): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (write && token() !== '') headers['authorization'] = `Bearer ${token()}`;
  const response = await fetch(path, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  if (response.ok) return response;
  let code = 'HTTP_ERROR';
  let message = `${method} ${path}: HTTP ${response.status}`;
  try {
    const answer = (await response.json()) as { error?: { code?: string; message?: string } };
    code = answer.error?.code ?? code;
    message = answer.error?.message ?? message;
  } catch {
    // Not the API's JSON error: the status says it.
  }
  if (response.status === 401) message = `${message}. This server protects writes: enter its token (the field at the top of the page).`;
  throw new ApiError(response.status, code, message);
}

export async function getJson<T>(path: string): Promise<T> {
  return (await (await request('GET', path)).json()) as T;
}

export async function postJson<T>(path: string, body: unknown, write = false): Promise<T> {
  return (await (await request('POST', path, body, write)).json()) as T;
}

export async function deleteJson<T>(path: string): Promise<T> {
  return (await (await request('DELETE', path, undefined, true)).json()) as T;
}

export async function getText(path: string): Promise<string> {
  return (await request('GET', path)).text();
}

/** NDJSON: one value per line. */
export async function getLines<T>(path: string): Promise<T[]> {
  const text = await getText(path);
  return text.split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as T);
}

export const path = (strings: TemplateStringsArray, ...values: string[]): string =>
  strings.reduce((out, part, i) => out + part + (i < values.length ? encodeURIComponent(values[i]!) : ''), '');

let openApiPaths: Promise<ReadonlySet<string>> | undefined;

/** Whether the server has the route `GET path` (OpenAPI spelling, `/v1/patterns/{id}/history`). */
export async function hasRoute(method: string, route: string): Promise<boolean> {
  openApiPaths ??= getJson<{ paths: Record<string, Record<string, unknown>> }>('/v1/openapi.json').then(
    (doc) => new Set(Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`))),
  );
  return (await openApiPaths).has(`${method} ${route}`);
}

// ---------------------------------------------------------------------------------------------
// Shapes

export interface GraphNode {
  readonly name: string;
  readonly community: number;
  readonly cluster: number;
  readonly pagerank: number;
  readonly calls: number;
}

export interface GraphEdge {
  readonly from: string;
  readonly to: string;
  readonly count: number;
  readonly probability: number;
  readonly reliability: number;
}

export interface GraphData {
  readonly version: number;
  readonly tools: number;
  readonly transitions: number;
  readonly communities: number;
  readonly clusters: number;
  readonly nodes: readonly GraphNode[];
  readonly edges: readonly GraphEdge[];
}

export interface Neighbour extends GraphEdge {
  readonly pattern: { readonly id: string; readonly composite: number; readonly tier: string };
}

export interface ToolNeighbours {
  readonly tool: GraphNode;
  readonly successors: readonly Neighbour[];
  readonly predecessors: readonly Neighbour[];
  readonly successorCount: number;
  readonly predecessorCount: number;
}

export interface RankedItem {
  readonly tool?: string;
  readonly kind: string;
  readonly capability?: string;
  readonly tools?: readonly string[];
  readonly score: number;
  readonly signals: Readonly<Record<string, number>>;
  readonly reliability?: number;
}

export interface Ranking {
  readonly kind: string;
  readonly items: readonly RankedItem[];
  readonly unmatched?: readonly string[];
  readonly hint?: string;
  readonly coverage?: number;
  readonly unknownContext?: readonly string[];
}

export interface DagNode {
  readonly id: string;
  readonly kind: string;
  readonly tool?: string;
  readonly capability?: string;
  readonly confidence: number;
}

export interface Dag {
  readonly kind: string;
  readonly nodes: readonly DagNode[];
  readonly edges: readonly { readonly from: string; readonly to: string; readonly confidence: number }[];
  readonly layers: readonly (readonly string[])[];
  readonly confidence: number;
  readonly status: string;
  readonly warnings: readonly string[];
  readonly unmatched?: readonly string[];
  readonly hint?: string;
}

export interface PatternConfidence {
  readonly frequency: number;
  readonly effectiveness: number;
  readonly human: number;
  readonly composite: number;
  readonly tier: string;
  readonly status: string;
}

export interface Pattern {
  readonly id: string;
  readonly kind: string;
  readonly tools: readonly string[];
  readonly observations: number;
  readonly successes: number;
  readonly failures: number;
  readonly approvals: number;
  readonly rejections: number;
  readonly confidence: PatternConfidence;
}

export interface PatternDetail extends Pattern {
  readonly feedback: readonly { readonly at: number; readonly decision: 'approve' | 'reject' }[];
}

export interface Budget {
  readonly budgetCents: number;
  readonly centsLeft: number;
  readonly centsSpent: number;
  readonly escalations: number;
  readonly maxEscalations: number;
  readonly mode: 'adaptive' | 'deterministic';
  readonly level: string;
}

export interface SessionView {
  readonly id: string;
  readonly intent: string;
  readonly plan: {
    readonly nodes: readonly { readonly id: string; readonly tool: string; readonly status: 'pending' | 'done'; readonly temporary: boolean }[];
    readonly current: string | null;
  };
  readonly budget: Budget;
  readonly steps: readonly { readonly tool: string; readonly success: boolean; readonly result: string }[];
  readonly next: readonly { readonly tool: string; readonly score: number }[];
  readonly createdAt: string;
  readonly expiresAt: string;
}

export interface TelemetryEvent {
  readonly timestamp: string;
  readonly level: string;
  readonly event: string;
  readonly data: Readonly<Record<string, unknown>>;
}

export interface Stats {
  readonly tools: number;
  readonly transitions: number;
  readonly traces: number;
  readonly version: number;
  readonly modelVersion: number;
  readonly rebuildMs: number;
  readonly offThreadBuilds: number;
  readonly slicedBuilds: number;
  readonly fit: {
    readonly state: string;
    readonly traces: number;
    readonly fittedAt: string | null;
    readonly ms: number;
    readonly kept: Readonly<Record<string, string>> | null;
    readonly running: boolean;
    readonly fits: number;
    readonly failures: number;
    readonly totalMs: number;
  };
}
