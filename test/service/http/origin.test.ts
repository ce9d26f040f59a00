import { describe, expect, it } from 'vitest';
import { hostChecker, isLoopbackAddress, originChecker, parseOriginList } from '../../../src/service/http/origin.js';

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
