// Renders only the transcript items near the viewport. Heights are measured
// with a ResizeObserver once an item has been shown and estimated before
// that (view/heightIndex.ts keeps them and their sums); spacers above and
// below keep the scrollbar honest. The list sticks to the bottom while the
// person has not scrolled up.
import type { Item } from '../state/types';
import { HeightIndex, type Window } from './heightIndex';

const OVERSCAN_PX = 1200;
const ESTIMATE_PX = 80;

export type { Window };

export class VirtualList {
  private readonly heights = new HeightIndex(ESTIMATE_PX);
  private readonly observed = new Set<Element>();
  private readonly observer: ResizeObserver;
  stickToBottom = true;
  private pinnedTop = 0;
  /** What the last render showed, to tell whether a new measurement or scroll needs another one. */
  private items: readonly Item[] = [];
  private shown: Window | undefined;

  constructor(private readonly scroller: HTMLElement, onChange: () => void) {
    this.observer = new ResizeObserver((entries) => {
      let changed = false;
      for (const entry of entries) {
        const key = (entry.target as HTMLElement).dataset.key;
        const height = entry.borderBoxSize[0]?.blockSize ?? entry.contentRect.height;
        if (key && this.heights.set(key, height)) changed = true;
      }
      // Most size changes (the streaming message growing) leave the same items in the window:
      // then following the bottom is all there is to do, without another render.
      if (changed && !this.sameWindow()) onChange();
      else if (changed && this.stickToBottom) this.pin();
    });
    scroller.addEventListener(
      'scroll',
      () => {
        const atBottom = scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 24;
        // Our own jump to the bottom can fire its scroll event after more content arrived:
        // only a move up from where we put the list means the person scrolled away.
        const movedUp = scroller.scrollTop < this.pinnedTop - 2;
        const wasSticking = this.stickToBottom;
        this.stickToBottom = atBottom || (this.stickToBottom && !movedUp);
        // Our own jump to the bottom changes nothing that was rendered.
        if (wasSticking && this.stickToBottom && Math.abs(scroller.scrollTop - this.pinnedTop) <= 2) return;
        if (this.sameWindow() && wasSticking === this.stickToBottom) return;
        onChange();
      },
      { passive: true },
    );
  }

  /** The slice of `items` to render now. */
  window(items: readonly Item[]): Window {
    const total = this.heights.total(items);
    const viewport = this.scroller.clientHeight || 800;
    const scrollTop = this.stickToBottom ? Math.max(0, total - viewport) : this.scroller.scrollTop;
    this.items = items;
    this.shown = this.heights.window(items, scrollTop - OVERSCAN_PX, scrollTop + viewport + OVERSCAN_PX);
    return this.shown;
  }

  /** True when the window for the current scroll position and sizes is the one last rendered. */
  private sameWindow(): boolean {
    const shown = this.shown;
    if (!shown) return false;
    const items = this.items;
    const now = this.window(items);
    this.shown = shown; // only the render that uses a window records it
    return now.start === shown.start && now.end === shown.end && now.top === shown.top && now.bottom === shown.bottom;
  }

  /** After a render: measure what is shown, forget what is not, keep pinned to the bottom. */
  afterRender(): void {
    const shown = new Set(this.scroller.querySelectorAll(':scope .vitem'));
    for (const element of this.observed) if (!shown.has(element)) this.observer.unobserve(element);
    for (const element of shown) if (!this.observed.has(element)) this.observer.observe(element);
    this.observed.clear();
    for (const element of shown) this.observed.add(element);
    if (this.stickToBottom) this.pin();
  }

  private pin(): void {
    this.scroller.scrollTop = this.scroller.scrollHeight;
    this.pinnedTop = this.scroller.scrollTop;
  }

  follow(): void {
    this.stickToBottom = true;
  }

  reset(): void {
    this.heights.clear();
    this.stickToBottom = true;
  }
}
