import { describe, expect, it } from 'vitest';
import { Toolgraph } from '../../src/service/toolgraph.js';
import { expectCode } from '../helpers/expect-code.js';

function trip(tg: Toolgraph, n: number, success = true): void {
  for (let i = 0; i < n; i++) tg.ingest({ tools: [{ name: 'search_hotels', ok: true }, 'book_hotel', 'send_confirmation'], intent: 'book a hotel and confirm it', success });
}

describe('Toolgraph capabilities', () => {
  it('registers capabilities, validates them at the boundary, and writes nothing on error', () => {
    const tg = new Toolgraph();
    tg.setTools([{ name: 'a' }, { name: 'b' }, { name: 'c' }]);
    expect(tg.setCapabilities([{ id: 'ab', tools: ['a', 'b'], description: 'first a then b' }])).toMatchObject({ capabilities: 1 });
    expect(tg.setCapabilities({ capabilities: [{ id: 'bc', tools: ['b', 'c'], ordered: false, code: 'run()' }] })).toMatchObject({ capabilities: 2 });
    expectCode(() => tg.setCapabilities([{ id: 'x', tools: ['a'] }, { id: 'x', tools: ['b'] }]), 'INVALID_INPUT', 'duplicate capability id');
    expectCode(() => tg.setCapabilities([{ id: 'y', tools: ['a', 'a'] }]), 'INVALID_INPUT', 'listed twice');
    expectCode(() => tg.setCapabilities([{ id: 'z', tools: [] }]), 'INVALID_INPUT', 'tools');
    expectCode(() => tg.setCapabilities([{ id: 'learned:a+b', tools: ['a', 'b'] }]), 'INVALID_INPUT', 'reserved');
    expectCode(() => tg.setCapabilities([{ id: 'z', tools: ['a'], extra: 1 }]), 'INVALID_INPUT');
    expectCode(() => tg.setCapabilities([{ id: 'ok', tools: ['a'] }, { id: 'bad', tools: ['nope'] }]), 'UNKNOWN_TOOL', 'nope');
    expect(tg.expandCapability('bc')).toEqual({ id: 'bc', tools: ['b', 'c'], ordered: false, description: '', code: 'run()', source: 'registered' });
    // Registered a moment ago, before any rebuild: expandable at once.
    tg.setCapabilities([{ id: 'ca', tools: ['c', 'a'] }]);
    expect(tg.expandCapability('ca').tools).toEqual(['c', 'a']);
    expectCode(() => tg.expandCapability('ok'), 'NOT_FOUND');
    tg.rebuild();
    expect(tg.capabilities().map((c) => c.id)).toEqual(['ab', 'bc', 'ca']);
  });

  it('learns a capability at its third successful run and suggests it after its first tool', () => {
    const tg = new Toolgraph();
    trip(tg, 2);
    tg.rebuild();
    expect(tg.capabilities()).toEqual([]);
    expect(tg.predictNext({ context: ['search_hotels'] }).items.every((i) => i.kind === 'tool')).toBe(true);
    trip(tg, 1);
    tg.rebuild();
    const ids = tg.capabilities().map((c) => c.id);
    expect(ids).toContain('learned:book_hotel+search_hotels+send_confirmation');
    const prediction = tg.predictNext({ context: ['search_hotels'] });
    // The predicted next tool, answered as the capability it starts.
    expect(prediction.items[0]).toMatchObject({ kind: 'capability', tool: 'book_hotel', capability: 'learned:book_hotel+search_hotels+send_confirmation' });
    expect(prediction.items.filter((i) => i.tool === 'book_hotel')).toHaveLength(1);
    const full = tg.expandCapability('learned:book_hotel+search_hotels+send_confirmation');
    expect(full.tools).toEqual(['search_hotels', 'book_hotel', 'send_confirmation']);
  });

  it('ranks capabilities for an intent, and learned reliability follows the outcomes', () => {
    const tg = new Toolgraph();
    trip(tg, 3);
    const ranking = tg.rankCapabilities({ intent: 'search hotels, book one, send the confirmation' });
    expect(ranking.mode).toBe('active-search');
    expect(ranking.items[0]!.capability).toBe('learned:book_hotel+search_hotels+send_confirmation');
    // Beta(1 + 3, 1): 0.8.
    expect(ranking.items[0]!.reliability).toBeCloseTo(0.8, 15);
    trip(tg, 10, false);
    tg.rebuild();
    // Failures credibly above half: excluded everywhere.
    expect(tg.rankCapabilities({ intent: 'search hotels, book one, send the confirmation' }).items).toEqual([]);
    expectCode(() => tg.rankCapabilities({ intent: 'x', k: 0 }), 'INVALID_INPUT', 'k');
    expectCode(() => tg.rankCapabilities({ boost: -1 }), 'INVALID_INPUT', 'boost');
  });

  it('rebuilds when capabilities change, not only when traces do', () => {
    const tg = new Toolgraph();
    tg.setTools([{ name: 'a' }, { name: 'b' }]);
    tg.ingest({ tools: ['a', 'b'] });
    tg.rebuild();
    expect(tg.rankCapabilities({ context: ['a'] }).items).toEqual([]);
    tg.setCapabilities([{ id: 'ab', tools: ['a', 'b'] }]);
    tg.rebuild();
    expect(tg.rankCapabilities({ context: ['a'] }).items.map((i) => i.capability)).toEqual(['ab']);
  });

  it('keeps cluster ids across rebuilds through the facade', () => {
    const tg = new Toolgraph({ learnCapabilities: false });
    tg.setTools(['a1', 'a2', 'a3', 'b1', 'b2', 'b3'].map((name) => ({ name })));
    tg.setCapabilities([
      { id: 'B1', tools: ['b1', 'b2', 'b3'] },
      { id: 'B2', tools: ['b2', 'b3'] },
    ]);
    const clusters = () => new Map(tg.rankCapabilities({ k: 10 }).items.map((i) => [i.capability, i.cluster]));
    const before = clusters().get('B1')!;
    // The a-tools come first in tool order: a fresh labelling would now number their cluster
    // first and move B's. Stable labels keep B's id and give A a new one.
    tg.setCapabilities([
      { id: 'A1', tools: ['a1', 'a2', 'a3'] },
      { id: 'A2', tools: ['a1', 'a2'] },
    ]);
    tg.rebuild();
    const after = clusters();
    expect(after.get('B1')).toBe(before);
    expect(after.get('B2')).toBe(before);
    expect(after.get('A1')).toBe(after.get('A2'));
    expect(after.get('A1')).not.toBe(before);
  });

  it('can turn learning off', () => {
    const tg = new Toolgraph({ learnCapabilities: false });
    trip(tg, 5);
    expect(tg.capabilities()).toEqual([]);
  });
});
