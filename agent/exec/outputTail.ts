// Keeps the last N bytes of a command's output. The end of a build or test
// log is where the error is, so older output is dropped from the front, and
// the cut always lands on a character boundary.

export class OutputTail {
  private chunks: Buffer[] = [];
  private size = 0;
  /** Bytes dropped from the front so far. */
  dropped = 0;

  constructor(private readonly maxBytes: number) {}

  push(text: string | Buffer): void {
    const chunk = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.maxBytes) {
      const first = this.chunks[0]!;
      const excess = this.size - this.maxBytes;
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
        this.dropped += first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.size -= excess;
        this.dropped += excess;
      }
    }
  }

  get truncated(): boolean {
    return this.dropped > 0;
  }

  /** The kept bytes as they are. */
  get bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }

  /** The kept output, starting at the first whole character. */
  get text(): string {
    const all = this.bytes;
    let start = 0;
    // UTF-8 continuation bytes are 10xxxxxx; skip a partial character left by the cut.
    if (this.truncated) while (start < all.length && (all[start]! & 0xc0) === 0x80) start += 1;
    return all.subarray(start).toString('utf8');
  }
}
