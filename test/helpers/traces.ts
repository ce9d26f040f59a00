/** Small trace builders for tests. */
import type { Trace } from '../../src/schema/types.js';

let counter = 0;

export function trace(tools: readonly (string | { name: string; ok: boolean })[], extra: Partial<Omit<Trace, 'steps'>> = {}): Trace {
  return {
    id: extra.id ?? `t${++counter}`,
    intent: extra.intent ?? '',
    domain: extra.domain ?? '',
    success: extra.success ?? true,
    timestamp: extra.timestamp ?? 1_000,
    steps: tools.map((t) => (typeof t === 'string' ? { tool: t, ok: true } : { tool: t.name, ok: t.ok })),
  };
}
