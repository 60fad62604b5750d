// Markdown message bodies as live elements, one per transcript item. A
// streaming message re-parses and replaces only its last block; blocks that
// are settled are parsed, and put in the DOM, once. A huge message is
// rendered a slice at a time within a per-frame budget, so one 2 MB chunk
// never freezes the panel; the rest follows in the next frames.
import { MarkdownStream } from '../render/markdownStream';

/** Markdown work per frame, in ms, before the rest waits for the next frame (huge messages only: a streamed chunk is one short step). */
const FRAME_BUDGET_MS = 10;
/**
 * HTML put in the DOM per frame, past which the rest waits for the next frame: the browser's work on it
 * (parsing it into nodes; style and layout of what lands near the viewport, where the view follows the
 * end) cost several times the markdown work that made it (2 MB chunk: 10 ms of markdown, 60-90 ms after).
 */
const HTML_PER_FRAME = 32_000;
/** Bodies whose element is kept; older ones are rebuilt from their (kept) HTML when shown again. */
const MAX_ELEMENTS = 300;
/**
 * Beyond this a body's settled blocks go into parts of about PART_HTML each, which are laid out
 * and painted only near the viewport (CSS content-visibility): a 2 MB message costs layout for
 * what is on screen, not for all of it, and few parts keep the visibility checks cheap.
 */
const BIG_CHARS = 50_000;
const PART_HTML = 16_000;

interface Body {
  stream: MarkdownStream;
  className: string;
  textLength: number;
  el?: HTMLElement;
  /** Blocks already in `el`, and the generation they belong to. */
  shown: number;
  generation: number;
  /** The nodes of the rendered tail, replaced on each update, and the HTML they came from. */
  tailNodes: ChildNode[];
  tailHtml: string;
  /** The part settled blocks are being added to (big bodies only), and its HTML size so far. */
  part?: HTMLElement;
  partHtml: number;
}

/** Measured markdown speed, to size each slice to about SLICE_MS of work. */
const SLICE_MS = 4;
const MAX_SLICE = 32_000;
let charsPerMs = 2000;

/**
 * Segments of a huge code block or paragraph (render/markdown.ts) added to the DOM per frame:
 * a new element is laid out in full the first time, so 1 MB of code put in at once would
 * cost one long layout; a few segments a frame keep each frame short.
 */
const SEGMENTS_PER_FRAME = 5;

interface SegmentQueue {
  parent: Element;
  nodes: Element[];
}

const bodies = new Map<string, Body>();
const pending = new Set<Body>();
const segmentQueues: SegmentQueue[] = [];
let deadline = 0;
let htmlLeft = 0;

/** Call at the start of each frame: opens this frame's markdown budget. */
export function startFrame(): void {
  deadline = performance.now() + FRAME_BUDGET_MS;
  htmlLeft = HTML_PER_FRAME;
}

/** The element showing `text` as markdown, updated in place; the same element for the same key. */
export function markdownBody(key: string, text: string, className: string): HTMLElement {
  let body = bodies.get(key);
  if (body) bodies.delete(key); // re-inserted below: the map is kept in least-recently-used order
  else body = { stream: new MarkdownStream(), className, textLength: 0, shown: 0, generation: 0, tailNodes: [], tailHtml: '', partHtml: 0 };
  bodies.set(key, body);
  body.stream.set(text);
  body.textLength = text.length;
  if (!body.el || body.className !== className) {
    body.className = className;
    body.el = document.createElement('div');
    body.el.className = className;
    body.shown = 0;
    body.tailNodes = [];
    body.tailHtml = '';
    body.part = undefined;
  }
  advance(body);
  evict();
  return body.el;
}

/** Continues sliced rendering left over from earlier frames; true while some is still left. */
export function continuePending(): boolean {
  let segments = SEGMENTS_PER_FRAME;
  while (segments > 0 && segmentQueues.length > 0) {
    const queue = segmentQueues[0] as SegmentQueue;
    // Detached bodies (scrolled out of the window) are filled too: cheap without layout, and complete when shown again.
    const next = queue.nodes.splice(0, segments);
    queue.parent.append(...next);
    segments -= next.length;
    if (queue.nodes.length === 0) segmentQueues.shift();
  }
  for (const body of pending) {
    if (!body.el?.isConnected) {
      pending.delete(body); // scrolled out of the window: picked up again when shown
      continue;
    }
    if (performance.now() >= deadline || htmlLeft <= 0) break;
    advance(body);
  }
  return pending.size > 0 || segmentQueues.length > 0;
}

export function forgetMarkdownBodies(): void {
  bodies.clear();
  pending.clear();
  segmentQueues.length = 0;
}

function advance(body: Body): void {
  const { stream } = body;
  // At least one step, even past the budget: a body shown for the first time must show something.
  let counted = stream.blocks.length;
  do {
    const started = performance.now();
    const slice = Math.min(MAX_SLICE, Math.max(2_000, Math.round(charsPerMs * SLICE_MS)));
    stream.step(slice);
    const took = performance.now() - started;
    // Only slices long enough to time say anything about speed (small updates are the common case),
    // and not a slice grown to take a whole huge block, whose text is mostly skipped over, not parsed.
    if (took > 1 && stream.lastParsed > 2_000 && stream.lastParsed <= 2 * slice) {
      charsPerMs = Math.max(200, 0.7 * charsPerMs + 0.3 * (stream.lastParsed / took));
    }
    if (stream.blocks.length < counted) counted = 0; // started over
    for (; counted < stream.blocks.length; counted += 1) htmlLeft -= (stream.blocks[counted] as string).length;
  } while (!stream.done && performance.now() < deadline && htmlLeft > 0);
  patch(body);
  if (stream.done) pending.delete(body);
  else pending.add(body);
}

function fragment(html: string): DocumentFragment {
  const template = document.createElement('template');
  // markdown-it escaped every untrusted string (html:false); links and images are neutralized in render/markdown.ts.
  template.innerHTML = html;
  const content = template.content;
  if (html.includes('-seg">')) deferSegments(content);
  return content;
}

/** A replaced tail's segments still queued are not needed any more. */
function dropQueuesUnder(removed: ChildNode[]): void {
  if (segmentQueues.length === 0 || removed.length === 0) return;
  for (let i = segmentQueues.length - 1; i >= 0; i -= 1) {
    const parent = (segmentQueues[i] as SegmentQueue).parent;
    if (removed.some((node) => node === parent || node.contains(parent))) segmentQueues.splice(i, 1);
  }
}

/** Keeps the first segments of each huge block and queues the rest for the next frames. */
function deferSegments(root: DocumentFragment): void {
  const byParent = new Map<Element, Element[]>();
  for (const segment of root.querySelectorAll('.code-seg, .text-seg')) {
    const parent = segment.parentElement;
    if (!parent) continue;
    const list = byParent.get(parent) ?? [];
    list.push(segment);
    byParent.set(parent, list);
  }
  for (const [parent, list] of byParent) {
    const later = list.slice(SEGMENTS_PER_FRAME);
    if (later.length === 0) continue;
    for (const node of later) node.remove();
    segmentQueues.push({ parent, nodes: later });
  }
}

function patch(body: Body): void {
  const el = body.el as HTMLElement;
  const { stream } = body;
  if (body.generation !== stream.generation) {
    dropQueuesUnder([...el.childNodes]);
    el.replaceChildren();
    body.generation = stream.generation;
    body.shown = 0;
    body.tailNodes = [];
    body.tailHtml = '';
    body.part = undefined;
  }
  const tailHtml = stream.done ? stream.tail : '';
  const newBlocks = stream.blocks.length > body.shown;
  if (!newBlocks && tailHtml === body.tailHtml) return;
  for (const node of body.tailNodes) node.remove();
  dropQueuesUnder(body.tailNodes);
  if (newBlocks) {
    const blocks = stream.blocks.slice(body.shown);
    body.shown = stream.blocks.length;
    if (body.textLength > BIG_CHARS) appendInParts(body, el, blocks);
    else el.append(fragment(blocks.join('')));
  }
  const tail = fragment(tailHtml);
  body.tailNodes = [...tail.childNodes];
  body.tailHtml = tailHtml;
  el.append(tail);
}

/** Adds settled blocks to parts; a block bigger than a part (a huge code block) stands alone, its own segments deferring its layout. */
function appendInParts(body: Body, el: HTMLElement, blocks: string[]): void {
  let batch = '';
  const flushBatch = () => {
    if (!batch) return;
    if (!body.part || body.partHtml > PART_HTML) {
      body.part = document.createElement('div');
      body.part.className = 'md-part';
      body.partHtml = 0;
      el.append(body.part);
    }
    body.part.append(fragment(batch));
    body.partHtml += batch.length;
    batch = '';
  };
  for (const html of blocks) {
    if (html.length > PART_HTML) {
      flushBatch();
      el.append(fragment(html));
      body.part = undefined;
    } else {
      batch += html;
      if (batch.length > PART_HTML) flushBatch();
    }
  }
  flushBatch();
}

function evict(): void {
  if (bodies.size <= MAX_ELEMENTS) return;
  for (const [key, body] of bodies) {
    if (bodies.size <= MAX_ELEMENTS) break;
    if (body.el?.isConnected) continue;
    bodies.delete(key);
    pending.delete(body);
  }
}
