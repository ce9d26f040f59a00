import { describe, expect, it } from 'vitest';
import { GroupCommit } from '../../src/service/group-commit.js';

/** A commit function that records the groups it was given and returns each group's sum. */
function recorder(fail?: (items: readonly number[]) => boolean) {
  const calls: number[][][] = [];
  const commit = async (groups: readonly (readonly number[])[]): Promise<number[]> => {
    calls.push(groups.map((g) => [...g]));
    await new Promise((r) => setTimeout(r, 5));
    if (fail !== undefined && groups.some(fail)) throw new Error('refused');
    return groups.map((g) => g.reduce((s, x) => s + x, 0));
  };
  return { calls, commit };
}

describe('GroupCommit', () => {
  it('commits submissions arriving together in one group, each caller getting its own result', async () => {
    const { calls, commit } = recorder();
    const writer = new GroupCommit(commit, { windowMs: 20 });
    const results = await Promise.all([writer.submit([1, 2]), writer.submit([3]), writer.submit([4, 5, 6])]);
    expect(results).toEqual([3, 3, 15]);
    expect(calls).toEqual([[[1, 2], [3], [4, 5, 6]]]);
    expect(writer.commits).toBe(1);
    expect(writer.committedItems).toBe(6);
  });

  it('queues what arrives during a commit for the next one, and caps a group at maxItems', async () => {
    const { calls, commit } = recorder();
    const writer = new GroupCommit(commit, { windowMs: 0, maxItems: 3 });
    const first = writer.submit([1]);
    // The first commit is in flight: these wait for it, then go in groups of at most 3 items.
    const rest = [writer.submit([2, 2]), writer.submit([3]), writer.submit([4, 4, 4, 4]), writer.submit([5])];
    expect(await Promise.all([first, ...rest])).toEqual([1, 4, 3, 16, 5]);
    expect(calls).toEqual([[[1]], [[2, 2], [3]], [[4, 4, 4, 4]], [[5]]]);
  });

  it('resolves no caller before its group committed, and flush waits for everything queued', async () => {
    const { commit } = recorder();
    const writer = new GroupCommit(commit, { windowMs: 100 });
    let done = false;
    const pending = writer.submit([7]).then((r) => {
      done = true;
      return r;
    });
    expect(writer.pending).toBe(1);
    await writer.flush();
    expect(done).toBe(true);
    expect(await pending).toBe(7);
    expect(writer.pending).toBe(0);
  });

  it("isolates a failing submission: it alone is rejected, the others in its group commit", async () => {
    const { calls, commit } = recorder((g) => g.includes(-1));
    const writer = new GroupCommit(commit, { windowMs: 10 });
    const outcomes = await Promise.allSettled([writer.submit([1]), writer.submit([-1, 2]), writer.submit([3])]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(outcomes[0]).toMatchObject({ value: 1 });
    expect(outcomes[2]).toMatchObject({ value: 3 });
    // The group, then each submission alone.
    expect(calls).toEqual([[[1], [-1, 2], [3]], [[1]], [[-1, 2]], [[3]]]);
  });

  it('refuses a window above 100 ms', () => {
    expect(() => new GroupCommit(async () => [], { windowMs: 101 })).toThrow(RangeError);
  });
});
