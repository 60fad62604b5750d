// Server-sent events, read incrementally from a model's response body: the
// `data` of each event, as the AI SDK's chain (TextDecoderStream ->
// eventsource-parser) gives it, without a stream per step. Bytes may split
// anywhere (mid line, mid UTF-8 sequence, between CR and LF). Lines end at
// CR, LF or CRLF; a blank line ends an event; `data:` lines join with "\n";
// comments and other fields are skipped; an event the body does not end
// with a blank line is dropped, as the SDK drops it.
//
// Unlike the SDK's parser, it is bounded: a line or an event longer than
// `maxChars` is an error (a server that never sends a newline would
// otherwise fill the heap).

export class SseTooLargeError extends Error {
  constructor(readonly maxChars: number) {
    super(`The model server sent an event longer than ${Math.round(maxChars / 1024 / 1024)} MB without ending it; Accord stopped reading the response.`);
    this.name = 'SseTooLargeError';
  }
}

/** Far above any chunk a chat completion streams (a whole tool call's arguments in one delta included). */
export const MAX_EVENT_CHARS = 16 * 1024 * 1024;

const SPACE = 32;
const COLON = 58;

export class SseEvents {
  private readonly decoder = new TextDecoder();
  /** The start of a line whose end has not arrived, in the pieces it came in (joined once its end does). */
  private readonly pending: string[] = [];
  private pendingChars = 0;
  private data = '';
  private dataLines = 0;

  constructor(private readonly maxChars = MAX_EVENT_CHARS) {}

  /** Feeds the next bytes; `onData` gets each complete event's data, in order. */
  push(bytes: Uint8Array, onData: (data: string) => void): void {
    const text = this.decoder.decode(bytes, { stream: true });
    if (text.length === 0) return;
    if (this.pending.length > 0 && text.indexOf('\n') === -1 && text.indexOf('\r') === -1) {
      // Still no line end: keep the piece (a long line is joined once, not at every chunk).
      this.hold(text);
      return;
    }
    const input = this.pending.length === 0 ? text : this.pending.join('') + text;
    this.pending.length = 0;
    this.pendingChars = 0;
    let start = 0;
    const end = input.length;
    let lf = input.indexOf('\n');
    let cr = input.indexOf('\r');
    while (start < end) {
      if (lf !== -1 && lf < start) lf = input.indexOf('\n', start);
      if (cr !== -1 && cr < start) cr = input.indexOf('\r', start);
      const lineEnd = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      // No line end yet, or a CR that may be the first half of a CRLF: wait for more.
      if (lineEnd === -1 || (lineEnd === cr && cr === end - 1)) break;
      this.line(input, start, lineEnd, onData);
      start = lineEnd + 1;
      if (lineEnd === cr && lf === start) start++;
    }
    if (start < end) this.hold(start === 0 ? input : input.slice(start));
  }

  private hold(text: string): void {
    this.pending.push(text);
    this.pendingChars += text.length;
    if (this.pendingChars + this.data.length > this.maxChars) throw new SseTooLargeError(this.maxChars);
  }

  private line(input: string, start: number, end: number, onData: (data: string) => void): void {
    if (start === end) {
      if (this.dataLines > 0) {
        const data = this.data;
        this.data = '';
        this.dataLines = 0;
        onData(data);
      }
      return;
    }
    // The field name runs to the first colon (the whole line when there is none); one space after it is not the value's.
    let colon = start;
    while (colon < end && input.charCodeAt(colon) !== COLON) colon++;
    if (colon === start) return; // a comment
    if (colon - start !== 4 || !input.startsWith('data', start)) return; // event, id, retry and unknown fields: nothing the model stream uses
    const valueStart = colon === end ? end : input.charCodeAt(colon + 1) === SPACE ? colon + 2 : colon + 1;
    const value = input.slice(valueStart, end);
    this.data = this.dataLines === 0 ? value : `${this.data}\n${value}`;
    this.dataLines++;
    if (this.data.length > this.maxChars) throw new SseTooLargeError(this.maxChars);
  }
}
