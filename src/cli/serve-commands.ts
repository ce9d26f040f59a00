/**
 * `toolgraph serve` (HTTP + MCP over Streamable HTTP) and `toolgraph mcp` (MCP over stdio).
 * Both run until SIGINT or SIGTERM, then shut down gracefully: in-flight requests finish and the
 * service is closed (pending traces committed). A second signal exits at once.
 */
import { ToolgraphError } from '../schema/errors.js';
import { AUTO_FIT_DEFAULTS, type AutoFitOptions } from '../schema/fit-options.js';
import { inMemoryService, type ToolgraphService } from '../service/service.js';
import { SERVER_REBUILD_DELAY_MS } from '../service/server-defaults.js';
import { parseOriginList } from '../service/http/origin.js';
import { storeOptionsFromEnv } from '../store/open-store.js';
import type { CliOutput, Values } from './command.js';
import { fromFile, readToolsOption } from './input-files.js';
import { loadToolgraph } from './learn.js';
import { LOG_LEVELS } from './option-specs.js';
import { decimalOption, intOption } from './options.js';
import type { SessionServiceOptions } from '../service/sessions.js';
import { sessionOptionsFromEnv } from '../engine/options.js';
import { DEFAULT_SEED } from '../graph/rng.js';

/** Resolves on the first SIGINT or SIGTERM; a second one exits immediately. */
function untilSignal(name: string, io: CliOutput): { signal: AbortSignal; done: Promise<string> } {
  const controller = new AbortController();
  const done = new Promise<string>((resolve) => {
    const onSignal = (sig: NodeJS.Signals) => {
      if (controller.signal.aborted) {
        io.err(`toolgraph ${name}: ${sig} again, exiting now\n`);
        process.exit(130);
      }
      controller.abort();
      resolve(sig);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  return { signal: controller.signal, done };
}

/**
 * The service behind `serve` and `mcp`: by default the durable store (`--data-dir`, or
 * PostgreSQL with TOOLGRAPH_DATABASE_URL), so that what is posted survives a restart and several
 * instances share one graph; in memory when --data / --traces name what to learn from instead.
 * `--tools` adds a catalogue either way. Rebuilds wait --rebuild-delay (default 2 s): under
 * steady ingestion a short delay keeps the server rebuilding instead of answering.
 */
export async function loadService(values: Values, io: CliOutput): Promise<ToolgraphService> {
  const options = { rebuildDelayMs: intOption(values, 'rebuild-delay', SERVER_REBUILD_DELAY_MS, 0) };
  const sessions = sessionServiceOptions(values);
  if (values['data'] !== undefined || values['traces'] !== undefined) return inMemoryService(await loadToolgraph(values, io, options), { sessions });
  const dataDir = typeof values['data-dir'] === 'string' ? values['data-dir'] : undefined;
  const { openToolgraph } = await import('../service/durable-toolgraph.js');
  const service = await openToolgraph({
    ...storeOptionsFromEnv(process.env, dataDir),
    seed: intOption(values, 'seed', DEFAULT_SEED, 0),
    learnCapabilities: values['learn-capabilities'] === true,
    autoFit: autoFitFromFlags(values),
    // What goes wrong in the background (a lost LISTEN connection, a failed snapshot) is told
    // on stderr: stdout is the request log (serve) or the JSON-RPC channel (mcp).
    onWarning: (message) => io.err(`toolgraph: warning: ${message}\n`),
    ...options,
    sessions,
  });
  try {
    const tools = values['tools'];
    if (typeof tools === 'string') {
      const catalog = await readToolsOption(tools, io);
      await fromFile(tools, () => service.setTools(catalog, { strict: true }));
    }
  } catch (error) {
    await service.close();
    throw error;
  }
  return service;
}

/** Workflow sessions' settings: spec 002's environment variables, TOOLGRAPH_LLM_URL / _KEY, and --telemetry FILE. */
function sessionServiceOptions(values: Values): SessionServiceOptions {
  const telemetry = values['telemetry'];
  return { options: sessionOptionsFromEnv(process.env), ...(typeof telemetry === 'string' ? { telemetryFile: telemetry } : {}) };
}

export async function runServe(values: Values, _positionals: readonly string[], io: CliOutput): Promise<void> {
  const port = intOption(values, 'port', 8080, 0, 65_535);
  const host = typeof values['host'] === 'string' ? values['host'] : '127.0.0.1';
  const level = typeof values['log-level'] === 'string' ? values['log-level'] : 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new ToolgraphError('INVALID_INPUT', `--log-level: expected one of ${LOG_LEVELS.join(', ')}, got '${level}'`);
  }
  const stop = untilSignal('serve', io);
  const service = await loadService(values, io);
  const token = process.env['TOOLGRAPH_TOKEN'];
  const allowedOrigins = parseOriginList(typeof values['allow-origin'] === 'string' ? values['allow-origin'] : process.env['TOOLGRAPH_ALLOWED_ORIGINS']);
  const { startHttpServer } = await import('../service/http/server.js');
  const server = await startHttpServer(service, { port, host }, {
    logger: { level },
    allowedOrigins,
    ...(token !== undefined && token !== '' ? { token } : {}),
  });
  const stats = await service.stats();
  io.err(
    `toolgraph serve: listening on ${server.url} (${stats.tools} tools, ${stats.traces} traces; writes ${token ? 'need the bearer token' : 'are open: set TOOLGRAPH_TOKEN to protect them'})\n`,
  );
  const sig = await stop.done;
  io.err(`toolgraph serve: ${sig}: finishing in-flight requests\n`);
  await server.close();
  io.err('toolgraph serve: stopped\n');
}

export async function runMcp(values: Values, _positionals: readonly string[], io: CliOutput): Promise<void> {
  const stop = untilSignal('mcp', io);
  const service = await loadService(values, io);
  const { serveMcpStdio } = await import('../service/mcp/stdio.js');
  await serveMcpStdio(service, stop.signal);
}

/** The store-backed service's fitting by itself, from serve's and mcp's flags. */
export function autoFitFromFlags(values: Values): AutoFitOptions | false {
  const tuned = ['fit-first-at', 'fit-growth', 'fit-interval', 'fit-idle'].filter((name) => values[name] !== undefined);
  if (values['no-auto-fit'] === true) {
    if (tuned.length > 0) throw new ToolgraphError('INVALID_INPUT', `--no-auto-fit: it never fits by itself, so --${tuned[0]} has nothing to tune`);
    return false;
  }
  const growth = decimalOption(values, 'fit-growth', 1e-6, 1_000);
  return {
    firstAt: intOption(values, 'fit-first-at', AUTO_FIT_DEFAULTS.firstAt, 1),
    ...(growth === undefined ? {} : { growth }),
    minIntervalMs: intOption(values, 'fit-interval', AUTO_FIT_DEFAULTS.minIntervalMs, 0, 2_147_483_647),
    idleMs: intOption(values, 'fit-idle', AUTO_FIT_DEFAULTS.idleMs, 0, 2_147_483_647),
  };
}
