/**
 * The dashboard's files as the server serves them (dashboard.ts), from a folder laid out as the
 * build lays out dist/web: the page at / with its content security policy, assets gzipped only
 * for a client that accepts gzip, revalidation by ETag, an unknown asset, and a package whose
 * dashboard was never built.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededService, startTestServer, call } from './_server.js';

const SCRIPT = `console.log(${JSON.stringify('x'.repeat(5_000))});\n`;
let built: Awaited<ReturnType<typeof startTestServer>>;
let unbuilt: Awaited<ReturnType<typeof startTestServer>>;
let dir: string;

/** A GET whose answer is not decoded (fetch would inflate gzip by itself). */
function rawGet(base: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'toolgraph-dashboard-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>t</title><script type="module" src="/assets/dashboard.js"></script>\n');
  writeFileSync(join(dir, 'assets', 'dashboard.js'), SCRIPT);
  writeFileSync(join(dir, 'assets', 'notes.txt'), 'not an asset type the server serves');
  built = await startTestServer({ dashboard: dir }, await seededService());
  unbuilt = await startTestServer({ dashboard: join(dir, 'missing') }, await seededService());
});
afterAll(async () => {
  await built.close();
  await unbuilt.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the dashboard files', () => {
  it('serves the page at / with a policy that loads nothing from elsewhere', async () => {
    const r = await rawGet(built.url, '/');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(r.body.toString()).toContain('/assets/dashboard.js');
    expect(r.headers['content-security-policy']).toContain("default-src 'self'");
    expect(r.headers['content-security-policy']).toContain("connect-src 'self'");
  });

  it('gzips an asset for a client that accepts gzip, and only then', async () => {
    const plain = await rawGet(built.url, '/assets/dashboard.js');
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(SCRIPT);
    const gz = await rawGet(built.url, '/assets/dashboard.js', { 'accept-encoding': 'br, gzip;q=0.8' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers['vary']).toBe('accept-encoding');
    expect(gz.body.length).toBeLessThan(SCRIPT.length / 10);
    expect(gunzipSync(gz.body).toString()).toBe(SCRIPT);
    const refused = await rawGet(built.url, '/assets/dashboard.js', { 'accept-encoding': 'gzip;q=0' });
    expect(refused.headers['content-encoding']).toBeUndefined();
  });

  it('answers 304 to a client that has the same file', async () => {
    const first = await rawGet(built.url, '/assets/dashboard.js');
    const etag = first.headers['etag'] as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await rawGet(built.url, '/assets/dashboard.js', { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });

  it('is NOT_FOUND for an asset it does not have, or of a type it does not serve', async () => {
    for (const name of ['nothing.js', 'notes.txt']) {
      const r = await call(built.url, `/assets/${name}`);
      expect(r.status).toBe(404);
      expect(r.json.error.code).toBe('NOT_FOUND');
    }
  });

  it('says how to build it when the package has no built dashboard, and the API still answers', async () => {
    const r = await call(unbuilt.url, '/');
    expect(r.status).toBe(503);
    expect(r.text).toContain('npm run build');
    expect((await call(unbuilt.url, '/v1/stats')).status).toBe(200);
  });
});
