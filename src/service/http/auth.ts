/**
 * Bearer-token auth for writes. With no token configured every request may write (a local
 * development server); with one, a write needs `Authorization: Bearer <token>`. Compared in
 * constant time over SHA-256 digests, so neither the token's content nor its length leaks
 * through timing.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** A predicate over the `Authorization` header: true when it carries the token (or none is set). */
export function bearerAuthorizer(token: string | undefined): (header: string | undefined) => boolean {
  if (token === undefined || token === '') return () => true;
  const expected = digest(token);
  return (header) => {
    if (typeof header !== 'string') return false;
    const match = /^Bearer[ \t]+(.+)$/i.exec(header.trim());
    if (match === null) return false;
    return timingSafeEqual(digest(match[1]!), expected);
  };
}
