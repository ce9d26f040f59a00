/**
 * A build written as stages: a generator that yields between its steps and returns what it
 * built. Run to the end at once (runStages) it is the plain synchronous build; a caller that lets
 * the event loop turn between steps (Toolgraph.rebuildInSlices) holds its thread for one step at
 * a time. One code path for both, so the two cannot drift apart.
 */

/** Runs a build's stages to the end, on this thread at once. */
export function runStages<T>(stages: Generator<void, T>): T {
  for (;;) {
    const step = stages.next();
    if (step.done === true) return step.value;
  }
}
