// A terminal's captured output under a byte limit. ACP says: past the limit,
// drop bytes from the beginning, cutting at a character boundary. Bytes are
// kept raw so a character split across two chunks is never mangled.
// Pure: no vscode import.

/**
 * The most any terminal keeps, whatever the agent asked (or when it asked
 * nothing): a command that prints without end must not fill the extension
 * host, and `terminal/output` answers at most this much text (JSON escapes
 * make it up to six times longer on the wire, still under ACP readers' 32 MiB line).
 */
export const MAX_TERMINAL_OUTPUT_BYTES = 4 * 1024 * 1024;

export class OutputBuffer {
  /** Chunks as they came; whole chunks before the last `limit` bytes are let go as more arrive. */
  private chunks: Buffer[] = [];
  private total = 0;
  private dropped = false;
  private readonly limit: number;

  /** `limit` undefined (or above the ceiling): keep the last MAX_TERMINAL_OUTPUT_BYTES. */
  constructor(limit?: number) {
    this.limit = Math.max(0, Math.min(limit ?? MAX_TERMINAL_OUTPUT_BYTES, MAX_TERMINAL_OUTPUT_BYTES));
  }

  append(chunk: Buffer | string): void {
    const data = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    if (data.length === 0) return;
    this.chunks.push(data);
    this.total += data.length;
    // Only whole chunks are let go here (no copy per chunk); text() cuts the rest.
    while (this.chunks.length > 1 && this.total - this.chunks[0]!.length >= this.limit) {
      this.total -= this.chunks.shift()!.length;
      this.dropped = true;
    }
    if (this.total > this.limit) this.dropped = true;
  }

  get truncated(): boolean {
    return this.dropped;
  }

  get byteLength(): number {
    return this.kept().length;
  }

  /** The text so far; an incomplete character at the end (still arriving) is left out. */
  text(): string {
    const bytes = this.kept();
    return bytes.subarray(0, completeLength(bytes)).toString('utf8');
  }

  /** The last `limit` bytes, never starting inside a character. */
  private kept(): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.total);
    this.chunks = all.length === 0 ? [] : [all];
    let start = Math.max(0, all.length - this.limit);
    if (start === 0 && !this.dropped) return all;
    // UTF-8 continuation bytes are 10xxxxxx: never start inside a character (a chunk let go may have ended inside one).
    while (start < all.length && ((all[start] ?? 0) & 0xc0) === 0x80) start++;
    if (start === 0) return all;
    const cut = all.subarray(start);
    this.chunks = cut.length === 0 ? [] : [cut];
    this.total = cut.length;
    return cut;
  }
}

/** Length of `bytes` without a trailing, incomplete UTF-8 sequence. */
function completeLength(bytes: Buffer): number {
  const n = bytes.length;
  for (let back = 1; back <= Math.min(4, n); back++) {
    const b = bytes[n - back] ?? 0;
    if ((b & 0xc0) === 0x80) continue; // continuation: keep looking for the lead byte
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? n - back : n;
  }
  return n;
}
