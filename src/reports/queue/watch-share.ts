/** The watches' share of report slots while people keep the queue busy. */
export interface WatchShareOptions {
  /**
   * Watches get at least one report slot in every this many windows, even while people's reports
   * wait. @default 5
   */
  everyWindows?: number;
  /**
   * How long a slot owed to the watches is kept for them once it frees, for a watch check to come
   * and take it (the watch scheduler looks again every 2 s while no slot is spare); then people
   * have it. @default 5000
   */
  holdMs?: number;
}

export const DEFAULT_WATCH_SLOT_EVERY_WINDOWS = 5;
export const DEFAULT_WATCH_SLOT_HOLD_MS = 5_000;

/** The options, checked, with the window they count in. */
export function watchShare(options: WatchShareOptions, windowMs: number): { shareMs: number; holdMs: number } {
  const everyWindows = options.everyWindows ?? DEFAULT_WATCH_SLOT_EVERY_WINDOWS;
  const holdMs = options.holdMs ?? DEFAULT_WATCH_SLOT_HOLD_MS;
  if (!Number.isInteger(everyWindows) || everyWindows < 1) {
    throw new RangeError(`everyWindows must be a whole number >= 1; got ${everyWindows}`);
  }
  if (!Number.isFinite(holdMs) || holdMs < 0) throw new RangeError(`holdMs must be a duration >= 0; got ${holdMs}`);
  return { shareMs: everyWindows * windowMs, holdMs };
}

/*
 * The rule (the shared queue keeps it in Lua, `report-slots.ts`): watches are owed a slot when none
 * took one in the last `shareMs` and a person took one since the watches' last (so while people
 * wait, never two watch calls in a row, however slow the queue is to hand people their slots). Owed one while people wait, a watch check takes a slot free now,
 * or else claims the next one to free: people take no slot until a watch has taken it or `holdMs`
 * after it freed. So each person's report waits at most one slot more, once in `shareMs`.
 */
export class WatchShare {
  readonly #shareMs: number;
  readonly #holdMs: number;
  #lastAt: number | undefined;
  /** A person took a slot since the watches' last one. */
  #personSince = true;
  #claimUntil = 0;

  constructor(options: WatchShareOptions, windowMs: number) {
    ({ shareMs: this.#shareMs, holdMs: this.#holdMs } = watchShare(options, windowMs));
  }

  /** Whether the watches are owed a slot now (none taken in the last `shareMs`, and a person's since). */
  owed(now: number): boolean {
    return this.#lastAt === undefined || (this.#personSince && now - this.#lastAt >= this.#shareMs);
  }

  /** A person took a slot. */
  personTook(): void {
    this.#personSince = true;
  }

  /** Until when people take no slot (a slot is held for the watches); 0 when none is. */
  heldUntil(now: number): number {
    return now < this.#claimUntil ? this.#claimUntil : 0;
  }

  /** The watches are owed a slot and none is free before `slotAt`: that one is kept for them. */
  claim(now: number, slotAt: number): void {
    this.#claimUntil = Math.max(now, slotAt) + this.#holdMs;
  }

  /** A watch took a slot. */
  took(now: number): void {
    this.#lastAt = now;
    this.#personSince = false;
    this.#claimUntil = 0;
  }
}
