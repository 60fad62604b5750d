// The response headers a model provider reads (`get`, `has`, `forEach`,
// `entries`, iteration), over what node:http parsed. The global `Headers`
// would load Node's bundled undici (~55 ms of CPU on the first request).
export class ResponseHeaders implements Iterable<[string, string]> {
  /** Lower-case name -> value; repeated fields joined with ", " (Set-Cookie too: no provider reads it). */
  private readonly fields = new Map<string, string>();

  /** `raw` is IncomingMessage.rawHeaders: [name, value, name, value, ...] in wire order and case. */
  constructor(raw: readonly string[]) {
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = raw[i]!.toLowerCase();
      const value = raw[i + 1]!;
      const earlier = this.fields.get(name);
      this.fields.set(name, earlier === undefined ? value : `${earlier}, ${value}`);
    }
  }

  get(name: string): string | null {
    return this.fields.get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.fields.has(name.toLowerCase());
  }

  forEach(callback: (value: string, name: string, headers: ResponseHeaders) => void): void {
    for (const [name, value] of this) callback(value, name, this);
  }

  /** Sorted by name, as `Headers` iterates. */
  *entries(): IterableIterator<[string, string]> {
    for (const name of [...this.fields.keys()].sort()) yield [name, this.fields.get(name)!];
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'Headers';
  }
}
