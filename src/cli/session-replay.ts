/**
 * `toolgraph session replay FILE`: each recorded workflow of FILE (JSONL: dataset workflow
 * records, or traces in any accepted format) runs as a workflow session through the engine: its
 * intent starts the session, each of its tools is reported as a step (a trace's failed steps as
 * failures), and every decision is printed: the evaluation, the deviation, the planner's
 * command, the session's answer for the next step beside the tool the recording called next,
 * who answered, and the budget. The sessions are deleted when their replay ends.
 */
import { ToolgraphError } from '../schema/errors.js';
import { readJsonlFile } from '../schema/jsonl.js';
import { SESSION_MODES } from '../schema/session-requests.js';
import type { Trace } from '../schema/types.js';
import type { ToolgraphService } from '../service/service.js';
import type { CliOutput, Values } from './command.js';
import { toTrace } from './input-files.js';
import { decimalOption } from './options.js';
import { loadService } from './serve-commands.js';
import { formatTable } from './table.js';

export async function runSessionReplay(values: Values, positionals: readonly string[], io: CliOutput): Promise<void> {
  const load = (v: Values): Promise<ToolgraphService> => loadService(v, io);
  const [action, file] = positionals;
  if (action !== 'replay') throw new ToolgraphError('INVALID_INPUT', `session: expected 'replay FILE', got '${action ?? ''}'`);
  if (file === undefined) throw new ToolgraphError('INVALID_INPUT', 'replay: expected FILE (JSONL of workflow records or traces)');
  const mode = values['mode'] ?? 'adaptive';
  if (typeof mode !== 'string' || !(SESSION_MODES as readonly string[]).includes(mode)) {
    throw new ToolgraphError('INVALID_INPUT', `--mode: expected ${SESSION_MODES.join(' or ')}, got '${String(mode)}'`);
  }
  const budgetCents = decimalOption(values, 'budget', 0, 100_000);
  // Its errors name the file (and line): the CLI says them as `toolgraph session: FILE: ...`.
  const traces: Trace[] = await readJsonlFile(file, toTrace);
  const json = values['json'] === true;
  const service = await load(values);
  const rows: (string | number)[][] = [];
  try {
    // The escalation threshold calibrated on the graph's traces first: every session replays with it.
    await service.sessions.calibrate();
    for (const [w, trace] of traces.entries()) {
      const intent = trace.intent !== '' ? trace.intent : trace.steps.map((s) => s.tool).join(' ');
      if (trace.steps.length === 0) continue;
      const session = await service.sessions.startSession({ intent, mode, ...(budgetCents === undefined ? {} : { budgetCents }) });
      const plan = session.view().plan.nodes.map((n) => `${n.id}:${n.tool}`).join(' ');
      if (json) io.out(`${JSON.stringify({ workflow: trace.id, session: session.id, intent, plan: session.view().plan, budget: session.view().budget })}\n`);
      else rows.push([trace.id, 0, '(start)', '-', '-', `plan ${plan || '(none)'}`, session.view().next[0]?.tool ?? '-', trace.steps[0]!.tool, 'graph', session.view().budget.centsSpent]);
      try {
        for (const [i, step] of trace.steps.entries()) {
          const result = await session.step({ tool: step.tool, success: step.ok });
          const expected = trace.steps[i + 1]?.tool ?? null;
          if (json) {
            io.out(`${JSON.stringify({ workflow: trace.id, turn: i + 1, tool: step.tool, success: step.ok, expected, ...result })}\n`);
            continue;
          }
          const a = result.adaptation;
          rows.push([
            trace.id,
            i + 1,
            `${step.tool}${step.ok ? '' : ' (failed)'}`,
            result.evaluation.result,
            result.deviation.class,
            a === null ? '-' : [a.op, a.targetAskCode, a.reason, a.note].filter((x) => x !== undefined).join(' '),
            result.next[0]?.tool ?? '-',
            expected ?? '(end)',
            `${result.answeredBy}${result.escalated && result.answeredBy === 'graph' ? ' (model failed)' : ''}`,
            result.budget.centsSpent,
          ]);
        }
      } finally {
        await service.sessions.deleteSession(session.id).catch(() => {});
      }
      if (!json && w < traces.length - 1) rows.push(['', '', '', '', '', '', '', '', '', '']);
    }
  } finally {
    await service.close();
  }
  if (!json) io.out(`${formatTable(['workflow', 'turn', 'tool', 'evaluation', 'deviation', 'adaptation', 'next', 'recorded next', 'answered by', 'cents spent'], rows)}\n`);
}
