// Splits a byte stream of newline-delimited JSON (a watch response) into whole lines. It works on
// bytes, not text: a newline byte (0x0A) never occurs inside a multi-byte UTF-8 sequence, so a
// character split across two chunks is decoded only once its whole line has arrived. Parts of a long
// line are kept as a list and joined once, so a very large line costs linear, not quadratic, time.

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** Kube's own limit on a single object is ~1.5 MiB; a line far beyond that means a broken stream. */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

export class LineTooLongError extends Error {
  readonly limitBytes: number;

  constructor(limitBytes: number) {
    super(`watch stream line exceeds ${limitBytes} bytes`);
    this.name = 'LineTooLongError';
    this.limitBytes = limitBytes;
  }
}

export class NdjsonLineSplitter {
  private readonly onLine: (line: string) => void;
  private readonly maxLineBytes: number;
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(onLine: (line: string) => void, maxLineBytes = DEFAULT_MAX_LINE_BYTES) {
    this.onLine = onLine;
    this.maxLineBytes = maxLineBytes;
  }

  /** Bytes held of a line whose newline has not arrived yet. */
  get bufferedBytes(): number {
    return this.pendingBytes;
  }

  /** Feeds one chunk; calls onLine for every line it completes (empty lines are skipped). */
  push(chunk: Buffer): void {
    let start = 0;
    for (
      let newline = chunk.indexOf(NEWLINE, start);
      newline !== -1;
      newline = chunk.indexOf(NEWLINE, start)
    ) {
      const tail = chunk.subarray(start, newline);
      start = newline + 1;
      this.checkLength(this.pendingBytes + tail.length);
      const line =
        this.pendingBytes === 0
          ? tail
          : Buffer.concat([...this.pending, tail], this.pendingBytes + tail.length);
      this.pending = [];
      this.pendingBytes = 0;
      this.emit(line);
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      this.checkLength(this.pendingBytes + rest.length);
      this.pending.push(rest);
      this.pendingBytes += rest.length;
    }
  }

  /**
   * Ends the stream. Returns the unterminated last line, if any, without emitting it: the caller
   * decides whether a stream cut mid-line is an error.
   */
  end(): string | undefined {
    if (this.pendingBytes === 0) return undefined;
    const rest = Buffer.concat(this.pending, this.pendingBytes).toString('utf8');
    this.pending = [];
    this.pendingBytes = 0;
    return rest;
  }

  private emit(line: Buffer): void {
    const length =
      line.length > 0 && line[line.length - 1] === CARRIAGE_RETURN ? line.length - 1 : line.length;
    if (length === 0) return;
    this.onLine(line.toString('utf8', 0, length));
  }

  private checkLength(bytes: number): void {
    if (bytes > this.maxLineBytes) {
      this.pending = [];
      this.pendingBytes = 0;
      throw new LineTooLongError(this.maxLineBytes);
    }
  }
}
