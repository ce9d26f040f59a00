/**
 * The dashboard's page and assets (built from src/web by `npm run build` into dist/web), served
 * at `/` and `/assets/<file>`. They are read once when the server is built, kept in memory with
 * a gzip copy each (sent to clients that accept gzip), and answered with a content security
 * policy that lets the page load nothing but this server's own files: it runs offline.
 *
 * A package without the built folder (a checkout before its first build) answers `/` with a 503
 * page that says how to build it; the API is unaffected.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
};

// The page's own scripts and styles only; the graph layout's worker is a blob the script makes;
// sigma draws on canvases it reads back as data URLs for nothing outside.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; worker-src 'self' blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

interface Asset {
  readonly type: string;
  readonly body: Buffer;
  readonly gzip: Buffer;
  readonly etag: string;
}

/** The folder of the built dashboard in this package: `dist/web` beside `dist/src`. */
export function defaultDashboardDir(): string {
  // This file is src/service/http/dashboard.ts (run from source) or dist/src/service/http/dashboard.js.
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let up = 0; up < 6; up++) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'dist', 'web');
    dir = dirname(dir);
  }
  return join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'web');
}

/** The built files of `dir` (index.html and assets/*), or null when there is no index.html. */
export function readDashboard(dir: string): ReadonlyMap<string, Asset> | null {
  if (!existsSync(join(dir, 'index.html'))) return null;
  const assets = new Map<string, Asset>();
  const add = (url: string, file: string): void => {
    const type = TYPES[extname(file)];
    if (type === undefined) return;
    const body = readFileSync(file);
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    assets.set(url, { type, body, gzip: gzipSync(body, { level: 9 }), etag });
  };
  add('/', join(dir, 'index.html'));
  const assetDir = join(dir, 'assets');
  if (existsSync(assetDir)) {
    for (const name of readdirSync(assetDir)) {
      if (statSync(join(assetDir, name)).isFile()) add(`/assets/${name}`, join(assetDir, name));
    }
  }
  return assets;
}

function accepts(request: FastifyRequest, coding: string): boolean {
  const header = request.headers['accept-encoding'];
  if (typeof header !== 'string') return false;
  return header.split(',').some((part) => {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return name === coding && (q === undefined || Number(q.slice(2)) > 0);
  });
}

function send(request: FastifyRequest, reply: FastifyReply, asset: Asset): FastifyReply {
  void reply.header('content-type', asset.type).header('etag', asset.etag).header('vary', 'accept-encoding').header('x-content-type-options', 'nosniff');
  // The page is looked at again after an upgrade: it and its assets are revalidated each time.
  void reply.header('cache-control', 'no-cache');
  if (asset.type.startsWith('text/html')) void reply.header('content-security-policy', CSP);
  if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
  if (accepts(request, 'gzip')) return reply.header('content-encoding', 'gzip').send(asset.gzip);
  return reply.send(asset.body);
}

const NOT_BUILT = `<!doctype html><html lang="en"><meta charset="utf-8"><title>toolgraph</title>
<p>The toolgraph dashboard is not built in this installation: run <code>npm run build</code> in the package's folder, then restart <code>toolgraph serve</code>. The API under <a href="/v1/openapi.json">/v1</a> works without it.</p></html>\n`;

/** Mounts `/` and `/assets/:name` from the built folder `dir`. */
export function mountDashboard(app: FastifyInstance, dir: string): void {
  const assets = readDashboard(dir);
  app.get('/', async (request, reply) => {
    const page = assets?.get('/');
    if (page === undefined) return reply.code(503).type('text/html; charset=utf-8').send(NOT_BUILT);
    return send(request, reply, page);
  });
  app.get('/assets/:name', async (request, reply) => {
    const name = (request.params as { name: string }).name;
    const asset = assets?.get(`/assets/${name}`);
    if (asset === undefined) {
      return reply.code(404).type('application/json').send({ error: { code: 'NOT_FOUND', message: `no dashboard asset ${JSON.stringify(name.slice(0, 200))}` } });
    }
    return send(request, reply, asset);
  });
}
