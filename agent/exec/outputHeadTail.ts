// Keeps the start and the end of a command's output within a byte budget:
// the start says what ran and how it began, the end is where the error is.
// Everything between is counted, never held, so a command printing gigabytes
// costs the same memory as one printing a page.
import { OutputTail } from './outputTail';

/** Cuts `bytes` to its longest prefix of whole UTF-8 characters. */
function wholeCharacters(bytes: Buffer): Buffer {
  let end = bytes.length;
  let back = 0;
  // Step back over continuation bytes (10xxxxxx) to the last lead byte and check its sequence is complete.
  while (end - back - 1 >= 0 && back < 4 && (bytes[end - back - 1]! & 0xc0) === 0x80) back += 1;
  const leadAt = end - back - 1;
  if (leadAt < 0) return bytes.subarray(0, end - back);
  const lead = bytes[leadAt]!;
  const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  if (back + 1 < length) end = leadAt;
  return bytes.subarray(0, end);
}

export class OutputHeadTail {
  private readonly headChunks: Buffer[] = [];
  private headSize = 0;
  private readonly tail: OutputTail;
  private total = 0;
  private readonly headBytes: number;

  constructor(maxBytes: number) {
    this.headBytes = Math.floor(maxBytes / 4);
    this.tail = new OutputTail(maxBytes - this.headBytes);
  }

  push(text: string): void {
    let chunk = Buffer.from(text, 'utf8');
    this.total += chunk.length;
    if (this.headSize < this.headBytes) {
      const room = this.headBytes - this.headSize;
      this.headChunks.push(chunk.subarray(0, room));
      this.headSize += Math.min(room, chunk.length);
      chunk = chunk.subarray(room);
    }
    if (chunk.length > 0) this.tail.push(chunk);
  }

  /** Bytes of output not kept. */
  get omitted(): number {
    return this.tail.dropped;
  }

  get truncated(): boolean {
    return this.omitted > 0;
  }

  /** The head, a marker saying how much was left out (when anything was), and the tail; each cut on a character boundary. */
  get text(): string {
    const head = Buffer.concat(this.headChunks);
    if (!this.truncated) return Buffer.concat([head, this.tail.bytes]).toString('utf8');
    const marker = `\n[… ${this.omitted.toLocaleString('en-US')} bytes of output omitted (${this.total.toLocaleString('en-US')} in all); the start and the end are shown …]\n`;
    return wholeCharacters(head).toString('utf8') + marker + this.tail.text;
  }
}
