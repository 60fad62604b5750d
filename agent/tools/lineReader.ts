// Streams a file's lines without ever holding a whole long line: a minified
// bundle or a one-line 1 GB log costs only the clipped prefix it shows.
import { createReadStream } from 'node:fs';

export interface Line {
  /** At most `maxChars` characters of the line, without its line ending. */
  text: string;
  /** The line's full length in characters. */
  length: number;
}

export async function* readLines(absolute: string, maxChars: number, signal: AbortSignal): AsyncGenerator<Line> {
  const stream = createReadStream(absolute, { encoding: 'utf8', signal, highWaterMark: 64 * 1024 });
  let text = '';
  let length = 0;
  let last = '';
  const add = (piece: string): void => {
    if (piece === '') return;
    if (text.length < maxChars) text += piece.slice(0, maxChars - text.length);
    length += piece.length;
    last = piece[piece.length - 1]!;
  };
  const finish = (): Line => {
    if (last === '\r') length -= 1; // CRLF: the CR belongs to the line ending
    const line = { text: text.slice(0, length), length };
    text = '';
    length = 0;
    last = '';
    return line;
  };
  try {
    for await (const chunk of stream as AsyncIterable<string>) {
      let start = 0;
      for (let at = chunk.indexOf('\n'); at !== -1; at = chunk.indexOf('\n', start)) {
        add(chunk.slice(start, at));
        yield finish();
        start = at + 1;
      }
      add(chunk.slice(start));
    }
    if (length > 0) yield finish();
  } finally {
    stream.destroy();
  }
}
