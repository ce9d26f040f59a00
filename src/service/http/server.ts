/**
 * The HTTP face (`toolgraph serve`): Fastify, JSON under `/v1` (routes.ts), `/healthz`,
 * Prometheus `/metrics`, the OpenAPI document, and the MCP server at `/mcp`. A thin layer over
 * `ToolgraphService`: it parses bodies, checks auth and content type, maps errors to statuses,
 * and logs one line per request.
 *
 * Order of checks for a request: route (404; a malformed path 400 in the router), CORS headers
 * for the origins let in, one Host header only (400), Host on a loopback server (403,
 * origin.ts), origin (403), auth for writes (401), content type (415), content encoding (415;
 * content-encoding.ts), body size once decoded (413), body syntax (400), then the service's own
 * validation (400/413). Host, origin, auth and content type are checked on the headers, before
 * any body byte is read.
 *
 * Graceful shutdown (`close()`): Fastify stops accepting connections and answers new requests
 * on kept-alive sockets with 503, in-flight requests run to completion, then the service is
 * closed, which commits whatever it still holds.
 */
import { VERSION } from '../../schema/version.js';
import fastifyCors from '@fastify/cors';
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyServerOptions } from 'fastify';
import { mountMcpHttp } from '../mcp/http.js';
import type { ToolgraphService } from '../service.js';
import { bearerAuthorizer } from './auth.js';
import { JSON_TYPE, NDJSON_TYPES, parseJsonBody, parseNdjsonBody } from './body.js';
import { contentCoding, decodeBody } from './content-encoding.js';
import { defaultDashboardDir, mountDashboard } from './dashboard.js';
import { clientErrorResponse, HttpError, renderError, STORE_RETRY_AFTER_SECONDS } from './errors.js';
import { HttpMetrics } from './metrics.js';
import { openApiDocument } from './openapi.js';
import { hostChecker, isLoopbackAddress, originChecker } from './origin.js';
import { ROUTES, WRITE_BODY_LIMIT, type RouteContext } from './routes.js';

/** The API's version in the OpenAPI document: the package's. */
export const API_VERSION = VERSION;

/** Longest path parameter, percent-encoded, the router takes (buildHttpApp, maxParamLength). */
const MAX_PATH_PARAMETER = 16 * 1024;

export interface HttpServerOptions {
  /** Bearer token required for writes (TOOLGRAPH_TOKEN); none: writes are open. */
  readonly token?: string;
  /** Fastify's logger (pino): false (default) for none, true or pino options for JSON lines. */
  readonly logger?: FastifyServerOptions['logger'];
  /** Origins besides loopback ones whose pages may call the server (origin.ts). */
  readonly allowedOrigins?: readonly string[];
  /**
   * Serve only requests whose Host is a loopback name (origin.ts, hostChecker): startHttpServer
   * sets it when it listens on a loopback address, unless given.
   */
  readonly loopbackHostsOnly?: boolean;
  /**
   * The loopback address the server listens on, served as the loopback names are (its `Host`,
   * its pages' `Origin`): startHttpServer sets it when that address is a loopback one.
   */
  readonly boundHost?: string;
  /**
   * The folder of the built dashboard served at `/` (dashboard.ts; default this package's
   * `dist/web`), or false for none.
   */
  readonly dashboard?: string | false;
  /** Mount the MCP server at `/mcp` (default true). */
  readonly mcp?: boolean;
  /** On close, connections still busy after this many ms are cut (default 10,000). */
  readonly shutdownTimeoutMs?: number;
  /**
   * A request whose headers and body have not all arrived after this many ms is answered 408
   * and its connection closed (default 60,000). Fastify's default is no limit: a client that
   * announced a longer body than it sent held its connection for as long as it stayed open.
   */
  readonly requestTimeoutMs?: number;
}

interface RouteConfig {
  readonly write?: boolean;
  /** Media types the body may have; undefined: the route takes no body. */
  readonly accepts?: readonly string[];
  /** The body may be left out (no Content-Type then): the handler sees `{}`. */
  readonly optionalBody?: boolean;
}

/** The request announces a body: a length above zero, or a chunked one. */
function hasBody(headers: { readonly 'content-length'?: string; readonly 'transfer-encoding'?: string }): boolean {
  return headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');
}

function mediaType(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  return header.split(';', 1)[0]!.trim().toLowerCase();
}

/** How many Host headers the request carries (`rawHeaders` alternates names and values). */
function hostHeaderCount(rawHeaders: readonly string[]): number {
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length === 4 && name.toLowerCase() === 'host') n++;
  }
  return n;
}

function shortUrl(url: string): string {
  return url.length <= 200 ? url : `${url.slice(0, 200)}…`;
}

export function buildHttpApp(service: ToolgraphService, options: HttpServerOptions = {}): FastifyInstance {
  const metrics = new HttpMetrics();
  const app = Fastify({
    logger: options.logger ?? false,
    // Fastify's own two lines per request are replaced by one of ours (onResponse, below).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: WRITE_BODY_LIMIT,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    requestTimeout: options.requestTimeoutMs ?? 60_000,
    // Path parameters are ids and pattern ids of up to MAX_ID_LENGTH characters each, sent
    // percent-encoded: Fastify's default of 100 turned away valid ones with its own 414. Node's
    // header size limit (16 KiB with the request line) bounds them before this does.
    routerOptions: { maxParamLength: MAX_PATH_PARAMETER },
    // Errors the router raises before any route or hook (a path that is not valid
    // percent-encoding, a parameter past maxParamLength): in the API's shape, counted, logged.
    frameworkErrors: (error, request, reply) => {
      const message = error.code === 'FST_ERR_BAD_URL' ? 'the URL path is not valid percent-encoded UTF-8' : `a URL path parameter is longer than ${MAX_PATH_PARAMETER} characters`;
      const status = error.code === 'FST_ERR_BAD_URL' ? 400 : 414;
      metrics.observe(request.method, 'unmatched', status, 0);
      request.log.info({ method: request.method, url: shortUrl(request.url), route: 'unmatched', status }, 'request');
      // The handler's generics leave reply's status and payload types open: answered as any reply.
      void (reply as unknown as FastifyReply).code(status).type(JSON_TYPE).send({ error: { code: 'INVALID_INPUT', message } });
    },
    clientErrorHandler: (error, socket) => {
      // A reset connection has no one left to answer.
      if ((error as NodeJS.ErrnoException).code === 'ECONNRESET' || socket.destroyed) return;
      if (socket.writable) socket.write(clientErrorResponse((error as NodeJS.ErrnoException).code));
      socket.destroy(error);
    },
  });
  const authorized = bearerAuthorizer(options.token);
  const originAllowed = originChecker(options.allowedOrigins, options.boundHost);
  const hostAllowed = hostChecker(options.loopbackHostsOnly ?? false, options.boundHost);
  const context: RouteContext = { service, metrics };
  let openApi: Record<string, unknown> | undefined;
  // Once closing, every response asks the client to close its connection: a kept-alive idle
  // socket would otherwise hold the server open until the client's keep-alive timeout.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Hooks take callbacks, not promises: they run on every request, and the hot path
  // (POST /v1/predict) is short enough for a promise per hook to show in its latency.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser(JSON_TYPE, { parseAs: 'buffer' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  app.addContentTypeParser([...NDJSON_TYPES], { parseAs: 'buffer' }, (_request, body, done) => {
    try {
      done(null, parseNdjsonBody(body as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  // Pages at the origins the check below lets in may call the API from a browser: answers carry
  // CORS headers for them and preflights are answered (@fastify/cors). Its hook runs before
  // ours (hence `after`), so a 401 or 415 reaches such a page readable too; any other origin gets
  // no CORS headers and our 403.
  void app.register(fastifyCors, {
    origin: (origin, callback) => callback(null, originAllowed(origin)),
    methods: ['GET', 'POST', 'PUT', 'DELETE'],
    allowedHeaders: ['content-type', 'authorization', 'accept', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id'],
    exposedHeaders: ['mcp-session-id', 'www-authenticate'],
    maxAge: 600,
    // An OPTIONS request that is not a full preflight gets the same empty 204, not a text/plain 400 outside the API's error shape.
    strictPreflight: false,
  });
  app.after(() => app.addHook('onRequest', (request, reply, done) => {
    // Node keeps the first of several Host headers; which one a proxy in front read is anyone's
    // guess, so a request naming two is refused (RFC 9112, section 3.2: 400).
    const hosts = hostHeaderCount(request.raw.rawHeaders);
    if (hosts > 1) {
      done(new HttpError(400, 'INVALID_INPUT', `the request has ${hosts} Host headers; send exactly one`));
      return;
    }
    const host = request.headers.host;
    if (!hostAllowed(host)) {
      done(new HttpError(403, 'FORBIDDEN_HOST', `requests naming host ${JSON.stringify(host!.slice(0, 200))} are refused: this server listens on loopback, and only a web page whose own name points at it (DNS rebinding) names another host; to serve other names, listen on another address (--host)`));
      return;
    }
    const origin = request.headers.origin;
    if (!originAllowed(origin)) {
      done(new HttpError(403, 'FORBIDDEN_ORIGIN', `requests from pages at ${JSON.stringify(origin!.slice(0, 200))} are refused: allow the origin with --allow-origin or TOOLGRAPH_ALLOWED_ORIGINS`));
      return;
    }
    const config = request.routeOptions.config as RouteConfig;
    if (config.write === true && !authorized(request.headers.authorization)) {
      reply.header('www-authenticate', 'Bearer realm="toolgraph"');
      done(new HttpError(401, 'UNAUTHORIZED', `${request.method} ${request.routeOptions.url ?? ''} writes: send 'Authorization: Bearer <token>'`));
      return;
    }
    if (config.accepts !== undefined && (config.optionalBody !== true || hasBody(request.headers))) {
      const type = mediaType(request.headers['content-type']);
      if (type === undefined || !config.accepts.includes(type)) {
        done(new HttpError(415, 'UNSUPPORTED_MEDIA_TYPE', `expected Content-Type ${config.accepts.join(' or ')}, got ${type === undefined ? 'none' : JSON.stringify(type.slice(0, 100))}`));
        return;
      }
    }
    if (request.routeOptions.url !== undefined && hasBody(request.headers)) {
      const coding = contentCoding(request.headers['content-encoding']);
      if (typeof coding !== 'string') {
        done(new HttpError(415, 'UNSUPPORTED_MEDIA_TYPE', coding.refused));
        return;
      }
    }
    done();
  }));
  // A compressed body is decoded on its way to the parsers, within the route's body limit
  // (content-encoding.ts); the onRequest check above has refused codings we do not decode.
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const coding = contentCoding(request.headers['content-encoding']);
    if (coding === 'identity' || typeof coding !== 'string') {
      done(null, payload);
      return;
    }
    done(null, decodeBody(payload, coding, request.routeOptions.bodyLimit ?? WRITE_BODY_LIMIT));
  });

  // One log line and one observation per request, hijacked ones (/mcp) included.
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const seconds = reply.elapsedTime / 1000;
    metrics.observe(request.method, route, reply.statusCode, seconds);
    request.log.info({ method: request.method, url: shortUrl(request.url), route, status: reply.statusCode, ms: Math.round(seconds * 1e6) / 1e3 }, 'request');
    done();
  });

  app.setErrorHandler((error, request, reply) => {
    const rendered = renderError(error);
    if (rendered.internal) request.log.error({ err: error }, 'request failed');
    if (rendered.warning !== undefined) request.log.warn({ code: rendered.body.error.code, cause: rendered.warning }, 'request failed');
    if (rendered.headers !== undefined) void reply.headers(rendered.headers);
    return reply.code(rendered.status).type(JSON_TYPE).send(rendered.body);
  });
  app.setNotFoundHandler((request, reply) => {
    const body = { error: { code: 'NOT_FOUND', message: `no route for ${request.method} ${shortUrl(request.url.split('?', 1)[0]!)}` } };
    return reply.code(404).type(JSON_TYPE).send(body);
  });

  for (const route of ROUTES) {
    const accepts = route.body === undefined ? undefined : route.body.ndjson === true ? [JSON_TYPE, ...NDJSON_TYPES] : [JSON_TYPE];
    const config: RouteConfig = { write: route.write, ...(accepts !== undefined ? { accepts } : {}), ...(route.body?.optional === true ? { optionalBody: true } : {}) };
    app.route({
      method: route.method,
      url: route.url,
      bodyLimit: route.body?.limit ?? WRITE_BODY_LIMIT,
      config,
      handler: async (request, reply) => {
        const query = route.query === undefined ? {} : request.query;
        const answer = await route.handle(context, { body: request.body, params: (request.params ?? {}) as Record<string, string>, query });
        if (route.status !== undefined) void reply.code(route.status);
        return route.ndjson === true ? reply.type(NDJSON_TYPES[0]).send(answer) : answer;
      },
    });
  }

  // 503 while the service cannot do its work (its store out of reach), for a load balancer to
  // route around this instance; the body says why.
  app.get('/healthz', async (_request, reply) => {
    const health = await service.health();
    if (health.status === 'ok') return health;
    return reply.code(503).header('retry-after', String(STORE_RETRY_AFTER_SECONDS)).type(JSON_TYPE).send(health);
  });
  app.get('/metrics', async (_request, reply) => {
    const text = await metrics.render(service);
    return reply.type('text/plain; version=0.0.4; charset=utf-8').send(text);
  });
  app.get('/v1/openapi.json', async () => (openApi ??= openApiDocument(ROUTES, API_VERSION)));
  if (options.dashboard !== false) mountDashboard(app, options.dashboard ?? defaultDashboardDir());

  if (options.mcp !== false) {
    mountMcpHttp(app, service, {
      authorized,
      closing: () => closing,
      bodyLimit: WRITE_BODY_LIMIT,
    });
  }
  return app;
}

export interface RunningHttpServer {
  readonly app: FastifyInstance;
  /** `http://host:port` as bound (port 0 resolved). */
  readonly url: string;
  /** Graceful: in-flight requests finish, then the service is closed. Idempotent. */
  close(): Promise<void>;
}

export async function startHttpServer(
  service: ToolgraphService,
  listen: { readonly port: number; readonly host: string },
  options: HttpServerOptions = {},
): Promise<RunningHttpServer> {
  const loopback = isLoopbackAddress(listen.host);
  const app = buildHttpApp(service, {
    ...options,
    loopbackHostsOnly: options.loopbackHostsOnly ?? loopback,
    ...(loopback && options.boundHost === undefined ? { boundHost: listen.host } : {}),
  });
  await app.listen({ port: listen.port, host: listen.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : listen.port;
  const host = listen.host.includes(':') ? `[${listen.host}]` : listen.host;
  const timeout = options.shutdownTimeoutMs ?? 10_000;
  let closing: Promise<void> | undefined;
  return {
    app,
    url: `http://${host}:${port}`,
    close: () =>
      (closing ??= (async () => {
        // A client that never finishes its request must not hold the shutdown forever.
        const cut = setTimeout(() => app.server.closeAllConnections(), timeout);
        cut.unref();
        try {
          await app.close();
        } finally {
          clearTimeout(cut);
          await service.close();
        }
      })()),
  };
}
