// A terminal's captured output under a byte limit. ACP says: past the limit,
// drop bytes from the beginning, cutting at a character boundary. Bytes are
// kept raw so a character split across two chunks is never mangled.
// Pure: no vscode import.

export class OutputBuffer {
  private bytes: Buffer = Buffer.alloc(0);
  private dropped = false;

  /** `limit` undefined: keep everything. */
  constructor(private readonly limit?: number) {}

  append(chunk: Buffer | string): void {
    const data = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    this.bytes = this.bytes.length === 0 ? Buffer.from(data) : Buffer.concat([this.bytes, data]);
    if (this.limit === undefined || this.bytes.length <= this.limit) return;
    let start = this.bytes.length - Math.max(0, this.limit);
    // UTF-8 continuation bytes are 10xxxxxx: never start inside a character.
    while (start < this.bytes.length && ((this.bytes[start] ?? 0) & 0xc0) === 0x80) start++;
    this.bytes = this.bytes.subarray(start);
    this.dropped = true;
  }

  get truncated(): boolean {
    return this.dropped;
  }

  get byteLength(): number {
    return this.bytes.length;
  }

  /** The text so far; an incomplete character at the end (still arriving) is left out. */
  text(): string {
    return this.bytes.subarray(0, completeLength(this.bytes)).toString('utf8');
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
