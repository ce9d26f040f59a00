/**
 * Lets the event loop run between two stages of a model build: one turn, then more while turns
 * keep running other work, until as long as the stage took. Work waiting (commits, queries, each
 * needing a few turns) so gets about half of the thread while a model is built, and an idle loop
 * costs the build one turn. Real time, not the service's Clock: it measures the thread.
 */

/** A turn of the event loop longer than this ran other work (an idle turn takes microseconds). */
const BUSY_TURN_MS = 0.5;

export async function giveWay(stageMs: number): Promise<void> {
  let given = 0;
  for (;;) {
    const started = performance.now();
    await new Promise((resolve) => setImmediate(resolve));
    const turn = performance.now() - started;
    given += turn;
    if (turn < BUSY_TURN_MS || given >= stageMs) return;
  }
}
