import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startHttpServer } from '../../../src/service/http/server.js';
import { hostChecker, isLoopbackAddress, originChecker, parseOriginList } from '../../../src/service/http/origin.js';
import { call, rawCall, seededService } from './_server.js';

describe('originChecker', () => {
  it('allows no Origin, loopback origins and listed ones; refuses the rest', () => {
    const allowed = originChecker(['https://app.example.com']);
    expect(allowed(undefined)).toBe(true);
    expect(allowed('http://localhost')).toBe(true);
    expect(allowed('https://127.0.0.1:8443')).toBe(true);
    expect(allowed('https://app.example.com')).toBe(true);
    expect(allowed('https://APP.example.com/')).toBe(true);
    expect(allowed('http://app.example.com')).toBe(false); // another scheme is another origin
    expect(allowed('https://app.example.com:444')).toBe(false);
    expect(allowed('http://127.0.0.1.nip.example')).toBe(false);
    expect(allowed('null')).toBe(false);
    expect(allowed('ftp://localhost')).toBe(false);
    expect(allowed('')).toBe(false);
    expect(originChecker()('https://app.example.com')).toBe(false);
  });

  it('reads an origin list separated by commas or spaces', () => {
    expect(parseOriginList(undefined)).toEqual([]);
    expect(parseOriginList(' https://a.example, https://b.example  https://c.example,')).toEqual(['https://a.example', 'https://b.example', 'https://c.example']);
  });

  it('serves, on a loopback server, only requests that name a loopback host', () => {
    const loopback = hostChecker(true);
    for (const host of ['127.0.0.1:8080', 'localhost', 'LOCALHOST:3000', '[::1]:8080', undefined]) expect(loopback(host), String(host)).toBe(true);
    // What a DNS-rebinding page sends: its own name, pointed at 127.0.0.1.
    for (const host of ['evil.example:8080', 'localhost.evil.example', '127.0.0.1.nip.example', '', 'a b']) expect(loopback(host), host).toBe(false);
    expect(hostChecker(false)('evil.example')).toBe(true);
    expect(['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]'].every(isLoopbackAddress)).toBe(true);
    expect(['0.0.0.0', '::', '10.0.0.1', '128.0.0.1', 'example.com'].some(isLoopbackAddress)).toBe(false);
  });
});

describe('hostChecker and originChecker for the address a loopback server is bound to', () => {
  it('serve the bound address with any port (IPv4, IPv6 in any spelling) beside the loopback names', () => {
    const bound = hostChecker(true, '127.0.0.2');
    for (const host of ['127.0.0.2:8080', '127.0.0.2', '127.0.0.1:8080', 'localhost:1', '[::1]']) expect(bound(host), host).toBe(true);
    for (const host of ['127.0.0.3:8080', 'evil.example', '127.0.0.2.nip.example']) expect(bound(host), host).toBe(false);
    const six = hostChecker(true, '::1');
    expect(six('[::1]:8080')).toBe(true);
    expect(six('[0:0:0:0:0:0:0:1]:8080')).toBe(true);
    expect(hostChecker(true, '[0:0:0:0:0:0:0:1]')('[::1]:9')).toBe(true);
    expect(hostChecker(true, 'LOCALHOST')('localhost:9')).toBe(true);
    const origin = originChecker([], '127.0.0.2');
    expect(origin('http://127.0.0.2:8080')).toBe(true);
    expect(origin('http://127.0.0.3:8080')).toBe(false);
    expect(originChecker()('http://127.0.0.2:8080')).toBe(false);
  });
});

/** Whether this machine can bind `host` (IPv6 loopback may be switched off). */
function canBind(host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(0, host, () => probe.close(() => resolve(true)));
  });
}

const [binds127002, bindsIpv6] = await Promise.all([canBind('127.0.0.2'), canBind('::1')]);
if (!binds127002) console.warn('origin: cannot bind 127.0.0.2 here (Linux routes all of 127.0.0.0/8 to loopback); its test is skipped');
if (!bindsIpv6) console.warn('origin: cannot bind ::1 here (IPv6 is off); its test is skipped');

describe('a real server bound to another loopback address', () => {
  it.runIf(binds127002)('serves requests at 127.0.0.2 (its own address), refuses other names', async () => {
    const server = await startHttpServer(await seededService(), { port: 0, host: '127.0.0.2' });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.2:\d+$/);
      const port = new URL(server.url).port;
      // fetch names the server as it was reached: Host 127.0.0.2:port.
      const stats = await call(server.url, '/v1/stats');
      expect(stats.status).toBe(200);
      expect(stats.json.traces).toBe(4);
      const write = await call(server.url, '/v1/traces', { body: { tools: ['search_flights', 'book_flight'] }, headers: { origin: `http://127.0.0.2:${port}` } });
      expect(write.status).toBe(200);
      const ask = (host: string) => rawCall(server.url, `GET /v1/stats HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      expect((await ask('127.0.0.2')).status).toBe(200);
      expect((await ask(`localhost:${port}`)).status).toBe(200);
      const refused = await ask(`evil.example:${port}`);
      expect(refused.status).toBe(403);
      expect(refused.json.error.code).toBe('FORBIDDEN_HOST');
      expect((await ask(`127.0.0.3:${port}`)).status).toBe(403);
    } finally {
      await server.close();
    }
  });

  it.runIf(bindsIpv6)('serves requests at [::1] on a server bound to ::1', async () => {
    const server = await startHttpServer(await seededService(), { port: 0, host: '::1' });
    try {
      expect(server.url).toMatch(/^http:\/\/\[::1\]:\d+$/);
      expect((await call(server.url, '/v1/stats')).status).toBe(200);
      const port = new URL(server.url).port;
      const ask = (host: string) => rawCall(server.url, `GET /v1/stats HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      expect((await ask(`[::1]:${port}`)).status).toBe(200);
      expect((await ask(`[0:0:0:0:0:0:0:1]:${port}`)).status).toBe(200);
      expect((await ask(`evil.example:${port}`)).status).toBe(403);
    } finally {
      await server.close();
    }
  });
});
