// Playing a simulator in real time, for every tab that has a Play button: each animation
// frame advances virtual time by the wall time since the last frame (at most 100 ms of
// it, so a background tab does not leap) times the speed, redraws at most every
// `renderEveryMs`, and saves the state to the URL about once a second.

export interface PlayHooks {
  /** Still playing (checked at every frame)? */
  playing(): boolean;
  speed(): number;
  /** Advances virtual time by `ms`; a throw stops the play. */
  advance(ms: number): void;
  /** The least wall time between two redraws, now (ms). */
  renderEveryMs(): number;
  refresh(): void;
  save(): void;
  /** `advance` threw with this message. */
  failed(message: string): void;
}

export class PlayClock {
  private lastFrame = 0;
  private lastRender = 0;
  private lastSaved = 0;

  constructor(private readonly h: PlayHooks) {}

  /** Starts the frames; they stop by themselves once `playing()` is false. */
  start(): void {
    this.lastFrame = performance.now();
    requestAnimationFrame((ts) => this.frame(ts));
  }

  private frame(ts: number): void {
    if (!this.h.playing()) return;
    const dt = Math.min(ts - this.lastFrame, 100);
    this.lastFrame = ts;
    try {
      this.h.advance(Math.max(1, Math.round(dt * this.h.speed())));
    } catch (e) {
      this.h.failed((e as Error).message);
      return;
    }
    if (ts - this.lastRender >= this.h.renderEveryMs()) {
      this.lastRender = ts;
      this.h.refresh();
    }
    if (ts - this.lastSaved > 1000) {
      this.lastSaved = ts;
      this.h.save();
    }
    requestAnimationFrame((t) => this.frame(t));
  }
}
