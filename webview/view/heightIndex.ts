// Item heights and their running sums, for the virtual list. The list asks
// where the viewport falls several times a frame (each render, each resize
// and scroll event); over a 5,000-message transcript, summing every height
// each time was a noticeable share of the main thread while an agent
// streamed. The sums are kept and recomputed only from the first item whose
// height changed; a transcript only grows at its end (items are pushed, a
// new session is a new array), so streaming recomputes one or two sums.

/** What the list shows for a scroll position: items [start, end), and the space above and below them. */
export interface Window {
  start: number;
  end: number;
  top: number;
  bottom: number;
}

export class HeightIndex {
  private readonly heights = new Map<string, number>();
  /** sums[i]: the heights of items [0, i) added up, valid for i <= valid. */
  private readonly sums: number[] = [0];
  /** Keys of the items the sums were computed for (the index of a key whose height changes). */
  private readonly keys: string[] = [];
  private readonly indexOf = new Map<string, number>();
  private valid = 0;
  private array: readonly { key: string }[] | undefined;

  constructor(private readonly estimate: number) {}

  /** Records a measured height; true when it differs from what was known. */
  set(key: string, height: number): boolean {
    if (this.heights.get(key) === height) return false;
    this.heights.set(key, height);
    const at = this.indexOf.get(key);
    if (at !== undefined && at < this.valid) this.valid = at;
    return true;
  }

  clear(): void {
    this.heights.clear();
    this.forgetSums();
  }

  /** The sum of every item's height (measured, or the estimate). */
  total(items: readonly { key: string }[]): number {
    this.update(items);
    return this.sums[items.length] as number;
  }

  /** Items overlapping [from, to] (in the list's coordinates), as the window to render. */
  window(items: readonly { key: string }[], from: number, to: number): Window {
    this.update(items);
    const n = items.length;
    const sums = this.sums;
    // start: the first item whose bottom edge reaches `from`; end: the first item whose top edge is past `to`.
    const start = this.firstIndex(1, n, (j) => (sums[j] as number) >= from) - 1;
    const end = this.firstIndex(0, n - 1, (i) => (sums[i] as number) > to);
    const top = sums[Math.min(start, n)] as number;
    return { start, end, top, bottom: (sums[n] as number) - (sums[end] as number) };
  }

  /** The smallest i in [low, high] where `test` holds (it holds for every larger i too), or high + 1. */
  private firstIndex(low: number, high: number, test: (i: number) => boolean): number {
    let lo = low;
    let hi = high + 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (test(mid)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  private forgetSums(): void {
    this.valid = 0;
    this.keys.length = 0;
    this.sums.length = 1;
    this.indexOf.clear();
  }

  /** Brings the sums up to date for `items`, from the first one that may have changed. */
  private update(items: readonly { key: string }[]): void {
    // Another array, fewer items, or another key where one was: not an append, start over.
    const last = this.valid - 1;
    if (items !== this.array || items.length < this.keys.length || (last >= 0 && items[last]?.key !== this.keys[last])) {
      this.array = items;
      this.forgetSums();
    }
    for (let i = this.valid; i < items.length; i += 1) {
      const key = (items[i] as { key: string }).key;
      if (this.keys[i] !== key) {
        if (this.keys[i] !== undefined && this.indexOf.get(this.keys[i] as string) === i) this.indexOf.delete(this.keys[i] as string);
        this.keys[i] = key;
      }
      this.indexOf.set(key, i);
      this.sums[i + 1] = (this.sums[i] as number) + (this.heights.get(key) ?? this.estimate);
    }
    this.valid = items.length;
    this.keys.length = items.length;
    this.sums.length = items.length + 1;
  }
}
