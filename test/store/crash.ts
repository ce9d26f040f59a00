/**
 * Crash test helper: runs crash-child.ts in a separate `node` (through vite-node, so it imports
 * the TypeScript sources), SIGKILLs it while its large batch is in flight, and reports what the
 * child acknowledged. The caller reopens the store and checks all-or-nothing.
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { iterateTraces, type Store } from '../../src/store/store.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..');
// vite-node comes with vitest: it runs the TypeScript sources in a plain `node` process.
const VITE_NODE = join(ROOT, 'node_modules', 'vite-node', 'vite-node.mjs');

export interface CrashArgs {
  readonly dataDir?: string;
  readonly databaseUrl?: string;
  readonly schema?: string;
  readonly first: number;
  readonly second: number;
  readonly durable?: boolean;
  /** Delay between the child starting the large batch and the kill, in ms. */
  readonly killAfterMs: number;
}

export interface CrashReport {
  readonly firstAcked: boolean;
  readonly secondAcked: boolean;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
}

/**
 * Spawns the child and SIGKILLs it `killAfterMs` after it began the large batch, or, with
 * `killWhen`, as soon as that probe (polled every 10 ms from then on) says the batch is under
 * way: a fixed delay misses the window on a loaded machine.
 */
export function crashChild({ killAfterMs, killWhen, ...args }: CrashArgs & { killWhen?: () => Promise<boolean> }): Promise<CrashReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [VITE_NODE, join(HERE, 'crash-child.ts'), JSON.stringify(args)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let timer: ReturnType<typeof setTimeout> | undefined;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (timer === undefined && stdout.includes('begin second')) {
        if (killWhen === undefined) {
          timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
        } else {
          const probe = async (): Promise<void> => {
            if (child.exitCode !== null || child.signalCode !== null) return;
            if (await killWhen().catch(() => false)) child.kill('SIGKILL');
            else timer = setTimeout(() => void probe(), 10);
          };
          timer = setTimeout(() => void probe(), 0);
        }
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (_code, signal) => {
      if (timer !== undefined) clearTimeout(timer);
      resolve({ firstAcked: stdout.includes('acked first'), secondAcked: stdout.includes('acked second'), signal, stderr });
    });
  });
}

/**
 * After the kill: the acknowledged batch is all there, the killed one is entirely there or
 * entirely absent, and the transitions agree with the stored traces.
 */
export async function expectAllOrNothing(store: Store, args: CrashArgs, report: CrashReport): Promise<'none' | 'all'> {
  expect(report.stderr).not.toMatch(/Error/);
  expect(report.firstAcked).toBe(true);
  const stats = await store.stats();
  if (report.secondAcked) expect(stats.traces).toBe(args.first + args.second);
  else expect([args.first, args.first + args.second]).toContain(stats.traces);
  let steps = 0;
  let firsts = 0;
  for await (const { trace } of iterateTraces(store, 0, 5_000)) {
    steps += trace.steps.length - 1;
    if (trace.id.startsWith('first-')) firsts++;
  }
  expect(firsts).toBe(args.first);
  const transitions = await store.listTransitions();
  expect(transitions.reduce((sum, t) => sum + t.count, 0)).toBe(steps);
  return stats.traces === args.first ? 'none' : 'all';
}
