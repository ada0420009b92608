import type { Clock } from '../../time/clock.js';

/** Least time between two edits of one message for its wait alone (its place unchanged). */
export const COUNTDOWN_EDIT_MS = 10_000;

/**
 * Most such edits a minute for all of this process's waiting messages: `chat.update` is Tier 3
 * (about 50 a minute per app and workspace), shared with the watch cards and every final edit.
 */
export const COUNTDOWN_EDITS_PER_MINUTE = 20;

const MINUTE_MS = 60_000;

/** A wait as its message shows it ("about 58 s"): whole seconds, at least one. */
const shownSeconds = (waitMs: number) => Math.max(1, Math.ceil(waitMs / 1000));

/** What a waiting message shows now: its wait, and when it was shown. */
export interface ShownWait {
  at: number;
  waitMs: number;
}

/**
 * When a queued report's message counts its wait down: "position 1, about 58 s" is edited as the
 * wait shrinks, only when the seconds shown change, at most once a `COUNTDOWN_EDIT_MS` per message
 * and `COUNTDOWN_EDITS_PER_MINUTE` for all of them (a countdown skipped now shows at a later look).
 * A change of place is always shown, and is not counted here.
 */
export class WaitCountdown {
  readonly #clock: Clock;
  readonly #editMs: number;
  readonly #perMinute: number;
  #edits: number[] = [];

  constructor(clock: Clock, options: { editMs?: number; perMinute?: number } = {}) {
    this.#clock = clock;
    this.#editMs = options.editMs ?? COUNTDOWN_EDIT_MS;
    this.#perMinute = options.perMinute ?? COUNTDOWN_EDITS_PER_MINUTE;
  }

  /** Whether the message showing `shown` is edited now to show `waitMs`; the edit is counted when so. */
  due(shown: ShownWait, waitMs: number): boolean {
    const now = this.#clock.now();
    if (now - shown.at < this.#editMs || shownSeconds(waitMs) === shownSeconds(shown.waitMs)) return false;
    this.#edits = this.#edits.filter((at) => now - at < MINUTE_MS);
    if (this.#edits.length >= this.#perMinute) return false;
    this.#edits.push(now);
    return true;
  }
}
