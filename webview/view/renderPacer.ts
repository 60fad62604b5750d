// When the panel renders. What the person does (typing, scrolling, a click,
// a slice of a huge message still to show) renders in the next animation
// frame. What arrives from the extension (mostly streamed chunks, up to
// hundreds a second) renders at most about every other frame: a render
// redoes layout and paint of the growing message, and streamed text looks
// just as smooth at 30 updates a second, at half the main-thread time
// (issue 17: the panel stays under 25 % busy while an agent streams).

/** The least time between two renders that only the extension's messages asked for; under two 60 Hz frames, so jitter never skips a third. */
export const HOST_RENDER_GAP_MS = 25;

type Frame = (callback: (time: number) => void) => number;

export class RenderPacer {
  private frame = 0;
  private urgent = false;
  private lastRender = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly render: () => void,
    private readonly requestFrame: Frame = (callback) => requestAnimationFrame(callback),
  ) {}

  /** Render in the next frame. */
  now(): void {
    this.urgent = true;
    this.request();
  }

  /** Render in the first frame at least HOST_RENDER_GAP_MS after the last render (unless now() comes first). */
  paced(): void {
    this.request();
  }

  private request(): void {
    if (this.frame === 0) this.frame = this.requestFrame(this.tick);
  }

  private readonly tick = (time: number): void => {
    this.frame = 0;
    if (!this.urgent && time - this.lastRender < HOST_RENDER_GAP_MS) {
      this.request();
      return;
    }
    this.urgent = false;
    this.lastRender = time;
    // render() may ask again (now() or paced()): that asks for a new frame, since this one is spent.
    this.render();
  };
}
