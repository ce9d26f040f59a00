/** Which parts of a model are stale, from the versions it was built at and those of now (model-versions.ts). */
import { describe, expect, it } from 'vitest';
import { holdsWrites, staleParts, type VersionVector } from '../../src/service/model-versions.js';

const at: VersionVector = { graph: 5, weights: 1, catalog: 2, capabilities: 3, toolVectors: 0, learningComplete: true, signals: true };

describe('staleParts', () => {
  it('is empty for a model built at the versions of now', () => {
    expect(staleParts(at, { ...at })).toEqual([]);
  });

  it('names every part without a model', () => {
    expect(staleParts(null, at)).toEqual(['graph', 'weights', 'catalog', 'capabilities', 'toolVectors', 'learning', 'signals']);
  });

  it('names each part that moved, and only those', () => {
    expect(staleParts(at, { ...at, graph: 6 })).toEqual(['graph']);
    expect(staleParts(at, { ...at, weights: 2, toolVectors: 1 })).toEqual(['weights', 'toolVectors']);
    expect(staleParts(at, { ...at, catalog: 3, capabilities: 4 })).toEqual(['catalog', 'capabilities']);
  });

  it('names the learning when a model built during a backfill outlives it, or the other way round', () => {
    expect(staleParts({ ...at, learningComplete: false }, at)).toEqual(['learning']);
    expect(staleParts(at, { ...at, learningComplete: false })).toEqual(['learning']);
  });

  it('names the signals of a model built on communities restored for another graph version', () => {
    expect(staleParts({ ...at, signals: false }, at)).toEqual(['signals']);
  });
});

describe('holdsWrites', () => {
  it('holds the writes a model was built after, not those it was built before', () => {
    expect(holdsWrites(at, { catalog: 2, capabilities: 3 })).toBe(true);
    expect(holdsWrites(at, { catalog: 1, capabilities: 0 })).toBe(true);
    expect(holdsWrites(at, { catalog: 3, capabilities: 3 })).toBe(false);
    expect(holdsWrites(at, { catalog: 2, capabilities: 4 })).toBe(false);
    expect(holdsWrites(null, { catalog: 0, capabilities: 0 })).toBe(false);
  });
});
