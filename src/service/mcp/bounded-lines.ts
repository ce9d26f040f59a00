/**
 * Splits a byte stream into lines of at most `maxBytes` bytes (without the `\n`), each handed on
 * as one chunk ending in `\n`. A longer line is not held: once past the limit its bytes are
 * dropped up to the next newline, `onOversize` is called once for it, and the lines after it
 * go on as before. Memory is bounded by the limit, whatever the input.
 *
 * Why not the MCP SDK's own bound: its StdioServerTransport buffers stdin up to `maxBufferSize`
 * (10 MiB by default) and, past it, closes the transport, which ends the session with no answer
 * to the client and nothing on stderr. It has no hook for answering instead, so its input is
 * this stream, whose lines never reach that bound.
 */
import { Transform, type TransformCallback } from 'node:stream';

const NEWLINE = 0x0a;

export class BoundedLines extends Transform {
  /** Pieces of the line read so far, and their length in bytes. */
  private pieces: Buffer[] = [];
  private length = 0;
  /** Past the limit: dropping bytes until the next newline. */
  private skipping = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onOversize: () => void,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(NEWLINE, start);
      const end = nl === -1 ? chunk.length : nl;
      if (!this.skipping) {
        if (this.length + (end - start) > this.maxBytes) {
          this.pieces = [];
          this.length = 0;
          this.skipping = true;
          this.onOversize();
        } else if (end > start) {
          this.pieces.push(chunk.subarray(start, end));
          this.length += end - start;
        }
      }
      if (nl === -1) break;
      if (!this.skipping) {
        this.pieces.push(chunk.subarray(nl, nl + 1));
        // Copied out of the chunk: a view would keep the whole chunk alive as long as the line.
        this.push(Buffer.concat(this.pieces));
      }
      this.pieces = [];
      this.length = 0;
      this.skipping = false;
      start = nl + 1;
    }
    callback();
  }

  override _flush(callback: TransformCallback): void {
    // A last line without its newline is handed on as it is (the SDK reads only whole lines).
    if (!this.skipping && this.length > 0) this.push(Buffer.concat(this.pieces));
    callback();
  }
}
