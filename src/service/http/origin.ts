/**
 * Origin validation against DNS rebinding (MCP's Streamable HTTP transport requires it; the
 * JSON API needs it as much). A page on another site can make a browser send requests to a
 * toolgraph on localhost by pointing its own host name at 127.0.0.1: the browser then treats the
 * server as same-origin, sends no CORS preflight, and the `Host` header carries the attacker's
 * name. What it cannot forge is `Origin`, which browsers add to every POST, PUT and DELETE.
 *
 * So a request with an `Origin` is served only when that origin is a loopback one (a page served
 * from this machine) or one the operator listed (`--allow-origin`, TOOLGRAPH_ALLOWED_ORIGINS);
 * others get 403 FORBIDDEN_ORIGIN before anything is read. Requests without `Origin` (curl,
 * gateways, the MCP SDK's Node client: nothing a web page can send) are not affected.
 */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * A checker for the request's `Origin` header: true when it may be served. `boundHost`: the
 * loopback address the server listens on (127.0.0.2, say), whose pages are this machine's too.
 */
export function originChecker(allowed: readonly string[] = [], boundHost?: string): (origin: string | undefined) => boolean {
  const listed = new Set(allowed.map(normaliseOrigin));
  const local = loopbackNames(boundHost);
  return (origin) => {
    if (origin === undefined) return true;
    const normal = normaliseOrigin(origin);
    if (listed.has(normal)) return true;
    try {
      const url = new URL(normal);
      return (url.protocol === 'http:' || url.protocol === 'https:') && local.has(url.hostname);
    } catch {
      return false; // 'null' (sandboxed frames, file: pages) and anything unparsable
    }
  };
}

/**
 * A checker for the request's `Host` header, for a server bound to loopback: DNS rebinding's
 * same-origin GETs carry no `Origin` (a page at evil.example, its name pointed at 127.0.0.1,
 * reading /v1/tools or /metrics), but their `Host` is the page's own name. So a loopback server
 * serves only requests that name a loopback host or `boundHost`, the address it listens on
 * (`--host 127.0.0.2`: clients reaching it there name it so), on any port. `loopbackOnly` false
 * (a server bound to another address, reached by whatever names the network gives it): every
 * Host is served. A request without Host (HTTP/1.0) is not a browser's.
 */
export function hostChecker(loopbackOnly: boolean, boundHost?: string): (host: string | undefined) => boolean {
  if (!loopbackOnly) return () => true;
  const local = loopbackNames(boundHost);
  return (host) => {
    if (host === undefined) return true;
    const name = hostnameOf(host);
    return name !== undefined && local.has(name);
  };
}

/** The hostname of a `Host` value (or a bare address) as URLs spell it: lower case, IPv6 bracketed and compressed; undefined if it is not one. */
function hostnameOf(host: string): string | undefined {
  const trimmed = host.trim();
  // A bare IPv6 address (a --host value) has colons but no brackets.
  const bracketed = trimmed.includes(':') && !trimmed.startsWith('[') && trimmed.indexOf(':') !== trimmed.lastIndexOf(':') ? `[${trimmed}]` : trimmed;
  try {
    return new URL(`http://${bracketed}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/** The loopback names, and the address the server is bound to when it is given. */
function loopbackNames(boundHost: string | undefined): ReadonlySet<string> {
  const bound = boundHost === undefined ? undefined : hostnameOf(boundHost);
  return bound === undefined || LOOPBACK_HOSTS.has(bound) ? LOOPBACK_HOSTS : new Set([...LOOPBACK_HOSTS, bound]);
}

/** An address to listen on that only this machine reaches: `localhost`, 127.0.0.0/8 or ::1. */
export function isLoopbackAddress(address: string): boolean {
  const a = address.trim().toLowerCase().replace(/^\[|\]$/g, '');
  return a === 'localhost' || a === '::1' || /^127(\.\d{1,3}){3}$/.test(a);
}

/** Origins compare case-insensitively in scheme and host, without a trailing slash. */
function normaliseOrigin(origin: string): string {
  return origin.trim().replace(/\/+$/, '').toLowerCase();
}

/** TOOLGRAPH_ALLOWED_ORIGINS / --allow-origin: origins separated by commas or spaces. */
export function parseOriginList(text: string | undefined): string[] {
  if (text === undefined) return [];
  return text.split(/[\s,]+/).filter((o) => o !== '');
}
