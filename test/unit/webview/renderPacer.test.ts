import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { HOST_RENDER_GAP_MS, RenderPacer } from '../../../webview/view/renderPacer';

/** A fake display: frames every `period` ms; requestAnimationFrame queues for the next one. */
class Display {
  time = 0;
  private queued: Array<(time: number) => void> = [];
  readonly request = (callback: (time: number) => void) => {
    this.queued.push(callback);
    return this.queued.length;
  };
  constructor(private readonly period: number) {}
  frame(): void {
    this.time += this.period;
    const run = this.queued;
    this.queued = [];
    for (const callback of run) callback(this.time);
  }
  get waiting(): boolean {
    return this.queued.length > 0;
  }
}

describe('render pacing', () => {
  test("the person's actions render in the next frame; the extension's messages at most every other 60 Hz frame", () => {
    const display = new Display(1000 / 60);
    const renders: number[] = [];
    const pacer = new RenderPacer(() => renders.push(display.time), display.request);
    pacer.paced();
    display.frame();
    assert.deepEqual(renders, [display.time], 'the first message renders at once');
    pacer.paced();
    display.frame();
    assert.equal(renders.length, 1, 'the next frame is too soon for a streamed chunk');
    display.frame();
    assert.equal(renders.length, 2, 'the one after renders it');
    pacer.paced();
    pacer.now();
    display.frame();
    assert.equal(renders.length, 3, 'typing or scrolling does not wait');
    assert.equal(display.waiting, false, 'nothing left asking for frames');
  });

  test('any sequence of requests: nothing is lost, the person never waits, streamed renders keep their distance', () => {
    const step = fc.record({ urgent: fc.boolean(), frames: fc.integer({ min: 0, max: 4 }) });
    fc.assert(
      fc.property(fc.constantFrom(1000 / 60, 1000 / 120, 1000 / 30, 1000 / 144), fc.array(step, { maxLength: 60 }), (period, steps) => {
        const display = new Display(period);
        const renders: Array<{ at: number; urgent: boolean }> = [];
        let urgentAsked = false;
        const pacer = new RenderPacer(() => {
          renders.push({ at: display.time, urgent: urgentAsked });
          urgentAsked = false;
        }, display.request);
        let askedAt = -1;
        for (const s of steps) {
          const before = renders.length;
          askedAt = display.time;
          if (s.urgent) {
            urgentAsked = true;
            pacer.now();
          } else pacer.paced();
          if (s.urgent) {
            display.frame();
            assert.equal(renders.length, before + 1, 'an action renders in the very next frame');
          }
          for (let i = 0; i < s.frames; i += 1) display.frame();
        }
        // Whatever was asked last is rendered within the gap (plus one frame), and then the display goes idle.
        for (let i = 0; i < Math.ceil(HOST_RENDER_GAP_MS / period) + 1 && display.waiting; i += 1) display.frame();
        assert.equal(display.waiting, false);
        if (steps.length > 0) assert.ok((renders.at(-1)?.at ?? -1) > askedAt, 'the last request was rendered in a later frame');
        for (let i = 1; i < renders.length; i += 1) {
          const r = renders[i]!;
          if (!r.urgent) assert.ok(r.at - renders[i - 1]!.at >= HOST_RENDER_GAP_MS, 'paced renders keep the gap');
        }
      }),
      { numRuns: 300 },
    );
  });
});
