// Incremental markdown for a message that grows by appends. Once a later
// top-level block has started, no appended text can change the blocks
// before it (CommonMark closes them for good), so their HTML is rendered
// once and kept; each update re-parses only the last block and what follows.
// The same rule lets one huge chunk be rendered a slice at a time: a prefix
// ending at a line break is exactly what streaming would have seen.
// Link reference definitions are the exception (a later `[x]: url` changes
// earlier `[x]`): a message that has one is rendered whole every time.
// A closed code fence longer than a slice is found by scanning its lines
// (render/fence.ts) instead of block-parsing ever larger slices until it ends.
import { longFenceAt } from './fence';
import { md, normalizeMarkdown } from './markdown';

type Token = ReturnType<typeof md.parse>[number];

/** How much new text one step parses by default, in characters (a few ms of work on an idle machine). */
export const SLICE_CHARS = 8_000;

export class MarkdownStream {
  /** HTML of the blocks that no appended text can change, in order. */
  readonly blocks: string[] = [];
  /** HTML of everything after `blocks`; valid once `done`. */
  tail = '';
  /** Bumped whenever `blocks` was replaced rather than appended to. */
  generation = 0;
  private text = '';
  /** Characters of `text` covered by `blocks`. */
  private stable = 0;
  private whole = false;
  private doneValue = true;
  /** Characters the last step() parsed (the caller sizes the next slice by how long that took). */
  lastParsed = 0;

  /** True when `blocks` + `tail` show all of the text last set. */
  get done(): boolean {
    return this.doneValue;
  }

  /** Sets the message text; an append keeps the blocks, anything else starts over. */
  set(raw: string): void {
    const text = normalizeMarkdown(raw);
    if (text === this.text) return;
    if (!text.startsWith(this.text.slice(0, this.stable))) this.reset();
    this.text = text;
    this.doneValue = false;
  }

  /** Parses at most about `sliceChars` of new text; true once everything is rendered. */
  step(sliceChars = SLICE_CHARS): boolean {
    if (this.doneValue) return true;
    if (this.whole) {
      this.lastParsed = this.text.length;
      this.tail = md.renderer.render(md.parse(this.text, {}), md.options, {});
      this.doneValue = true;
      return true;
    }
    // A 1 MB fence took the grown slices below ~40 ms of parsing, twice, in one frame; its closing line is found in ~1 ms.
    const fence = longFenceAt(this.text, this.stable, sliceChars);
    if (fence) {
      this.blocks.push(fence.html);
      this.lastParsed = fence.end - this.stable;
      this.stable = fence.end;
      if (this.stable < this.text.length) return false;
      this.tail = '';
      this.doneValue = true;
      return true;
    }
    // Where the settled blocks end is found with the block parser alone (no inline parsing: cheap);
    // a slice that is all one block (a huge code fence) is grown until a later block starts.
    let slice = sliceChars;
    for (;;) {
      let end = this.text.length;
      if (end - this.stable > slice * 2) {
        const cut = this.text.indexOf('\n', this.stable + slice);
        if (cut >= 0) end = cut + 1;
      }
      const src = this.text.slice(this.stable, end);
      const env: Parameters<typeof md.parse>[1] = {};
      const outline: Token[] = [];
      md.block.parse(src, md, env, outline);
      if (env.references && Object.keys(env.references).length > 0) {
        this.reset();
        this.whole = true;
        return this.step();
      }
      const last = end === this.text.length;
      const groups = topLevel(outline);
      let tailStart = settledLength(src, groups);
      if (!last && tailStart === 0) {
        slice *= 4;
        continue;
      }
      // A grown slice settles the big block and little more: what follows it waits for the next step.
      let capped = false;
      if (slice > sliceChars) {
        const next = groups.find((g) => g.line > 0);
        const offset = next ? offsetOfLine(src, next.line) : tailStart;
        if (offset < tailStart) {
          tailStart = offset;
          capped = true;
        }
      }
      this.lastParsed = last && !capped ? src.length : tailStart;
      const settled = src.slice(0, tailStart);
      if (settled) {
        const penv: Parameters<typeof md.parse>[1] = {};
        for (const group of topLevel(md.parse(settled, penv))) this.blocks.push(md.renderer.render(group.tokens, md.options, penv));
      }
      this.stable += tailStart;
      if (!last || capped) return false;
      const rest = src.slice(tailStart);
      const tenv: Parameters<typeof md.parse>[1] = {};
      this.tail = rest ? md.renderer.render(md.parse(rest, tenv), md.options, tenv) : '';
      this.doneValue = true;
      return true;
    }
  }

  /** The whole HTML (for tests and for a container built from scratch). */
  html(): string {
    return this.blocks.join('') + this.tail;
  }

  private reset(): void {
    this.blocks.length = 0;
    this.tail = '';
    this.stable = 0;
    this.whole = false;
    this.generation += 1;
  }
}

interface Group {
  line: number;
  tokens: Token[];
}

/** The token runs of each top-level block, with the line each starts on. */
function topLevel(tokens: Token[]): Group[] {
  const groups: Group[] = [];
  let current: Group | undefined;
  for (const token of tokens) {
    if (!current) {
      current = { line: token.map?.[0] ?? 0, tokens: [] };
      groups.push(current);
    }
    current.tokens.push(token);
    if (token.level === 0 && token.nesting <= 0) current = undefined;
  }
  return groups;
}

/**
 * Characters of `src` whose blocks no appended text can change: everything before the last
 * top-level block, or before the one before it when the last starts on the unfinished last line
 * ("-" may grow into "---": a heading underline, or a lazy continuation of the block before).
 * Text with no block yet (blank lines, a lone tab) may still become part of the next one.
 */
function settledLength(src: string, groups: Group[]): number {
  const complete = src.lastIndexOf('\n') + 1;
  let first = groups.length - 1;
  while (first > 0 && complete < src.length && offsetOfLine(src, (groups[first] as Group).line) >= complete) first -= 1;
  const tail = groups[Math.max(0, first)];
  return tail ? offsetOfLine(src, tail.line) : 0;
}

function offsetOfLine(src: string, line: number): number {
  let offset = 0;
  for (let i = 0; i < line; i += 1) {
    const next = src.indexOf('\n', offset);
    if (next < 0) return src.length;
    offset = next + 1;
  }
  return offset;
}
