/**
 * `eval search`: the unfitted ranking beside the fitted one, and `--cold-tools`, the requests
 * whose tools no training trace showed.
 */
import { describe, expect, it } from 'vitest';
import { evaluateSearch } from '../../src/eval/run-eval.js';
import { isColdTool, withColdTools } from '../../src/eval/splits.js';
import type { Dataset } from '../../src/schema/dataset.js';
import { parseWorkflowRecord } from '../../src/schema/trace.js';

/** The first names `prefix0`, `prefix1`, ... that are (or are not) held out. */
function names(prefix: string, cold: boolean, count: number): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < count; i++) if (isColdTool(`${prefix}${i}`) === cold) out.push(`${prefix}${i}`);
  return out;
}

const [coldA, coldB] = names('cold_tool_', true, 2) as [string, string];
const [warmA, warmB] = names('warm_tool_', false, 2) as [string, string];

function dataset(): Dataset {
  const tools = [
    { name: warmA, description: 'find a flight between two cities', params: [] },
    { name: warmB, description: 'book a hotel room', params: [] },
    { name: coldA, description: 'track kangaroo sightings', params: [] },
    { name: coldB, description: 'count platypus nests', params: [] },
  ];
  const record = (i: number, split: 'train' | 'test', intent: string, used: string[]) =>
    parseWorkflowRecord({ id: `w${i}`, split, domain: 'd', source: 'test', intent, tools: used, edges: [], structure: 'single', ordered: true });
  const workflows = [
    ...Array.from({ length: 8 }, (_, i) => record(i, 'train', `find a flight to city ${i}`, [warmA])),
    ...Array.from({ length: 8 }, (_, i) => record(10 + i, 'train', `book a hotel room ${i}`, [warmB])),
    // Training traces that call a held-out tool: --cold-tools takes them out.
    record(20, 'train', 'track kangaroo sightings today', [coldA]),
    record(30, 'test', 'find a flight to Rome', [warmA]),
    record(31, 'test', 'track kangaroo sightings in the park', [coldA]),
    record(32, 'test', 'count platypus nests by the river', [coldB]),
  ];
  return { name: 'cold', dir: '/nowhere', tools, workflows };
}

describe('eval search', () => {
  it('holds a fifth of the tools out of training and asks only the requests that name one', () => {
    expect([coldA, coldB].every(isColdTool)).toBe(true);
    const split = withColdTools({ train: dataset().workflows.filter((w) => w.split === 'train'), test: dataset().workflows.filter((w) => w.split === 'test') });
    expect(split.train.some((w) => w.tools.includes(coldA))).toBe(false);
    expect(split.train).toHaveLength(16);
    expect(split.test.map((w) => w.id)).toEqual(['w31', 'w32']);
  });

  it('measures the unfitted ranking beside the fitted one; before a fit the description finds a tool no trace showed', () => {
    const cold = evaluateSearch(dataset(), { coldTools: true });
    expect(cold.map((r) => r.method)).toEqual(['bm25', 'learned', 'unfitted', 'toolgraph']);
    for (const r of cold) expect(r.n).toBe(2);
    const unfitted = cold.find((r) => r.method === 'unfitted')!;
    expect(unfitted.hit1).toBe(1);
    // The association never saw either tool.
    expect(cold.find((r) => r.method === 'learned')!.hit1).toBe(0);
    // Without --cold-tools every test request is asked.
    expect(evaluateSearch(dataset()).every((r) => r.n === 3)).toBe(true);
  });
});
