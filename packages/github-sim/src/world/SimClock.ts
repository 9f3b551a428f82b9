/**
 * The emulator's time: a base clock (Effect's `Clock`, so tests can drive it with `TestClock`)
 * shifted by an offset that the control API sets.
 */
export class SimClock {
  private offsetMs = 0

  constructor(private readonly base: () => number) {}

  /** Milliseconds since the epoch, as the emulator sees them. */
  now(): number {
    return this.base() + this.offsetMs
  }

  /** Makes `now()` answer `at` from this instant on; later time flows from there. */
  setTime(at: Date | string | number): void {
    this.offsetMs = new Date(at).getTime() - this.base()
  }

  /** Moves the emulator's time forward. */
  advance(ms: number): void {
    this.offsetMs += ms
  }
}

/** GitHub's timestamp format: ISO 8601 in UTC with second precision. */
export const isoSeconds = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z")
