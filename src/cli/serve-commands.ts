/**
 * `toolgraph serve` (HTTP + MCP over Streamable HTTP) and `toolgraph mcp` (MCP over stdio).
 * Both run until SIGINT or SIGTERM, then shut down gracefully: in-flight requests finish and the
 * service is closed (pending traces committed). A second signal exits at once.
 *
 * How the service is obtained is the caller's (commands.ts): these commands only need a
 * `ToolgraphService`.
 */
import { ToolgraphError } from '../schema/errors.js';
import type { ToolgraphService } from '../service/service.js';
import type { Command, OptionSpec, Values } from './command.js';
import { parseOriginList } from '../service/http/origin.js';
import { intOption } from './options.js';

export type ServiceLoader = (values: Values) => Promise<ToolgraphService>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Resolves on the first SIGINT or SIGTERM; a second one exits immediately. */
function untilSignal(name: string): { signal: AbortSignal; done: Promise<string> } {
  const controller = new AbortController();
  const done = new Promise<string>((resolve) => {
    const onSignal = (sig: NodeJS.Signals) => {
      if (controller.signal.aborted) {
        process.stderr.write(`toolgraph ${name}: ${sig} again, exiting now\n`);
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

export function serveCommands(sourceOptions: Readonly<Record<string, OptionSpec>>, load: ServiceLoader): Command[] {
  const { json: _json, ...rest } = sourceOptions;
  const sources: Record<string, OptionSpec> = {
    ...rest,
    tools: { type: 'string', help: 'a tool catalogue (JSONL, or JSON: array or MCP tools/list result), added to the store or to what --data / --traces learn' },
    'rebuild-delay': { type: 'string', help: 'ms from an ingestion to the model rebuild that includes it (default 2000)' },
    'learn-capabilities': { type: 'boolean', help: 'with the store: learn capabilities from the stored traces (more memory as traces grow; the in-memory sources always learn)' },
    telemetry: { type: 'string', value: 'FILE', help: "append every workflow session's telemetry to FILE (JSON lines)" },
  };
  const serve: Command = {
    name: 'serve',
    summary: 'HTTP service: JSON API under /v1, /healthz, /metrics, and the MCP server at /mcp.',
    usage: 'serve [--data-dir DIR | --data DIR | --traces FILE] [--tools FILE] [--port N] [--host H] [--log-level L] [--allow-origin O,...] [--rebuild-delay MS] [--learn-capabilities] [--telemetry FILE]',
    example: 'TOOLGRAPH_TOKEN=secret toolgraph serve --port 8080',
    options: {
      ...sources,
      port: { type: 'string', help: 'port to listen on (default 8080; 0 picks a free one)' },
      host: { type: 'string', help: 'address to bind (default 127.0.0.1; 0.0.0.0 for every interface)' },
      'log-level': { type: 'string', help: `request log level: ${LOG_LEVELS.join(', ')} (default info)` },
      'allow-origin': {
        type: 'string',
        help: 'web origins besides loopback ones whose pages may call the server, comma-separated (default: TOOLGRAPH_ALLOWED_ORIGINS); other origins get 403',
      },
    },
    async run(values) {
      const port = intOption(values, 'port', 8080, 0, 65_535);
      const host = typeof values['host'] === 'string' ? values['host'] : '127.0.0.1';
      const level = typeof values['log-level'] === 'string' ? values['log-level'] : 'info';
      if (!(LOG_LEVELS as readonly string[]).includes(level)) {
        throw new ToolgraphError('INVALID_INPUT', `--log-level: expected one of ${LOG_LEVELS.join(', ')}, got '${level}'`);
      }
      const stop = untilSignal('serve');
      const service = await load(values);
      const token = process.env['TOOLGRAPH_TOKEN'];
      const allowedOrigins = parseOriginList(typeof values['allow-origin'] === 'string' ? values['allow-origin'] : process.env['TOOLGRAPH_ALLOWED_ORIGINS']);
      // Loaded here so that other commands do not pay for Fastify and the MCP SDK at start-up.
      const { startHttpServer } = await import('../service/http/server.js');
      const server = await startHttpServer(service, { port, host }, {
        logger: { level },
        allowedOrigins,
        ...(token !== undefined && token !== '' ? { token } : {}),
      });
      const stats = await service.stats();
      process.stderr.write(
        `toolgraph serve: listening on ${server.url} (${stats.tools} tools, ${stats.traces} traces; writes ${token ? 'need the bearer token' : 'are open: set TOOLGRAPH_TOKEN to protect them'})\n`,
      );
      const sig = await stop.done;
      process.stderr.write(`toolgraph serve: ${sig}: finishing in-flight requests\n`);
      await server.close();
      process.stderr.write('toolgraph serve: stopped\n');
    },
  };
  const mcp: Command = {
    name: 'mcp',
    summary: 'MCP server over stdio: predict_next_tool, search_tools, suggest_dag, record_trace, score_trace, start_session, report_step.',
    usage: 'mcp [--data-dir DIR | --data DIR | --traces FILE] [--tools FILE] [--rebuild-delay MS] [--learn-capabilities] [--telemetry FILE]',
    example: 'toolgraph mcp',
    options: sources,
    async run(values) {
      const stop = untilSignal('mcp');
      const service = await load(values);
      const { serveMcpStdio } = await import('../service/mcp/stdio.js');
      await serveMcpStdio(service, stop.signal);
    },
  };
  return [serve, mcp];
}
