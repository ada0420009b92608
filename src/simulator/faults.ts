/**
 * `5xx`: a 503; `drop`: the connection is cut before the work is done; `drop-after`: the work is
 * done, then the connection is cut (the client cannot know); `truncate`: the work is done, the body
 * is cut off.
 */
export type FaultKind = '5xx' | 'drop' | 'drop-after' | 'truncate';

export interface FaultKnobs {
  /** Share of admitted requests that fail (0..1). */
  faultRate: number;
  /** Which failures `faultRate` draws from. */
  faultKinds: FaultKind[];
}

/** Decides which admitted requests fail and how: the next N forced ones, then at the configured rate. */
export class FaultPlan {
  readonly #random: () => number;
  #forced: { count: number; kind: FaultKind } | undefined;

  constructor(random: () => number) {
    this.#random = random;
  }

  /** The next `count` admitted requests fail this way, whatever the rate says. */
  force(count: number, kind: FaultKind): void {
    this.#forced = { count, kind };
  }

  next(knobs: FaultKnobs): FaultKind | undefined {
    if (this.#forced && this.#forced.count > 0) {
      this.#forced.count -= 1;
      return this.#forced.kind;
    }
    if (knobs.faultRate > 0 && knobs.faultKinds.length > 0 && this.#random() < knobs.faultRate) {
      return knobs.faultKinds[Math.floor(this.#random() * knobs.faultKinds.length)];
    }
    return undefined;
  }
}
