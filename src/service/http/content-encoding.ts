/**
 * Compressed request bodies (`Content-Encoding`): `gzip` (and its old name `x-gzip`), `deflate`
 * (the zlib format, RFC 9110 section 8.4.1.2) and `br` are decoded before the body is parsed;
 * `identity` is the body as it is. Any other coding, or more than one coding applied on top of
 * another, is refused with 415 before a byte is read.
 *
 * The route's body limit counts the decoded bytes, not the bytes on the wire: a small body that
 * inflates without end (a "gzip bomb") is cut off with 413 as soon as its output passes the
 * limit, so neither memory nor the time spent inflating grows with what it would have become.
 * Decoding is a stream with back-pressure: at most one zlib chunk beyond what was counted is
 * ever held.
 */
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { ToolgraphError } from '../../schema/errors.js';

export type ContentCoding = 'identity' | 'gzip' | 'deflate' | 'br';

export const CONTENT_CODINGS: readonly ContentCoding[] = ['identity', 'gzip', 'deflate', 'br'];

const NAMES: Readonly<Record<string, ContentCoding>> = { identity: 'identity', gzip: 'gzip', 'x-gzip': 'gzip', deflate: 'deflate', br: 'br' };

/**
 * The one coding a `Content-Encoding` header names (`identity` when absent or only identity),
 * or the reason it is refused: an unknown coding, or several stacked.
 */
export function contentCoding(header: string | undefined): ContentCoding | { readonly refused: string } {
  if (header === undefined) return 'identity';
  const listed = header
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  if (listed.length === 0) return 'identity';
  const unknown = listed.find((c) => !Object.hasOwn(NAMES, c));
  if (unknown !== undefined) {
    return { refused: `Content-Encoding ${JSON.stringify(unknown.slice(0, 100))} is not supported; send the body as gzip, deflate, br or identity (uncompressed)` };
  }
  if (listed.length > 1) return { refused: `Content-Encoding lists ${listed.length} codings (${listed.join(', ').slice(0, 100)}); send the body with one of gzip, deflate or br` };
  return NAMES[listed[0]!]!;
}

/** What Fastify reads to compare the bytes received with Content-Length (content-type-parser.js). */
export type DecodedBody = Readable & { receivedEncodedLength: number };

/**
 * The decoded body of `raw`, failing with PAYLOAD_TOO_LARGE once more than `limit` bytes came
 * out, and with INVALID_INPUT when `raw` is not valid data of `coding`.
 */
export function decodeBody(raw: Readable, coding: Exclude<ContentCoding, 'identity'>, limit: number): DecodedBody {
  const decoder = coding === 'gzip' ? createGunzip() : coding === 'deflate' ? createInflate() : createBrotliDecompress();
  let decoded = 0;
  const limiter = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      decoded += chunk.length;
      if (decoded > limit) {
        callback(new ToolgraphError('PAYLOAD_TOO_LARGE', `request body is larger than this endpoint accepts (${limit} bytes) once ${coding}-decoded`));
        return;
      }
      callback(null, chunk);
    },
  });
  const out = Object.assign(limiter, { receivedEncodedLength: 0 });
  raw.on('data', (chunk: Buffer) => {
    out.receivedEncodedLength += chunk.length;
  });
  raw.on('error', (error) => out.destroy(error));
  decoder.on('error', (error: NodeJS.ErrnoException) => {
    out.destroy(new ToolgraphError('INVALID_INPUT', `request body is not valid ${coding} data (${error.code ?? error.message}), as its Content-Encoding says`));
  });
  // Once the answer is decided (limit passed, bad data), nothing more is inflated.
  out.on('close', () => {
    raw.unpipe(decoder);
    decoder.destroy();
  });
  raw.pipe(decoder).pipe(out);
  return out;
}
