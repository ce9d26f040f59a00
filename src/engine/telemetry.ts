/**
 * The engine's telemetry (spec 002, "Telemetría"): one JSON object per decision,
 *
 *   {timestamp, level, event, sessionId, data}
 *
 * with the spec's events: engine.turn.start, evaluation.result, escalation.triggered,
 * adaptation.planned, budget.usage, advancement.accept and advancement.reject; besides them
 * session.start, and escalation.fallback (warn) when a model's answer could not be used. With
 * ENGINE_DEBUG, debug lines too: the graph's prediction, each model request and answer, and why
 * a wanted escalation was not made. The engine only collects them; the service stores them per
 * session and appends them to a JSONL file.
 */

export const SPEC_EVENTS = [
  'engine.turn.start',
  'evaluation.result',
  'escalation.triggered',
  'adaptation.planned',
  'budget.usage',
  'advancement.accept',
  'advancement.reject',
] as const;

export type TelemetryLevel = 'debug' | 'info' | 'warn';

export interface TelemetryEvent {
  readonly timestamp: string;
  readonly level: TelemetryLevel;
  readonly event: string;
  readonly sessionId: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/** Collects one step's (or start's) events, all stamped with the same clock. */
export class TelemetryLog {
  readonly events: TelemetryEvent[] = [];

  constructor(
    private readonly sessionId: string,
    private readonly now: () => number,
    private readonly debugOn: boolean,
  ) {}

  private add(level: TelemetryLevel, event: string, data: Record<string, unknown>): void {
    this.events.push({ timestamp: new Date(this.now()).toISOString(), level, event, sessionId: this.sessionId, data });
  }

  info(event: string, data: Record<string, unknown>): void {
    this.add('info', event, data);
  }

  warn(event: string, data: Record<string, unknown>): void {
    this.add('warn', event, data);
  }

  /** Only with ENGINE_DEBUG; `data` is computed only then. */
  debug(event: string, data: () => Record<string, unknown>): void {
    if (this.debugOn) this.add('debug', event, data());
  }
}

/** Events as JSON lines, each ending in a newline. */
export function toJsonLines(events: readonly TelemetryEvent[]): string {
  let out = '';
  for (const e of events) out += `${JSON.stringify(e)}\n`;
  return out;
}
