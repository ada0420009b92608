import { BUCKET_MS } from './sales-profile.js';

/**
 * The expected count of one stream (a category's sales per unit of capacity, a promo code's
 * redemptions) from the simulator's start to an instant: whole buckets summed in order from the
 * start, then a share of the current one. Sums are kept per bucket and only ever extended, so the
 * value at an instant does not depend on when or how often it was asked for.
 */
export class SalesStream {
  #bucket = 0;
  #sum = 0;

  constructor(
    private readonly originMs: number,
    private readonly weight: (bucket: number) => number,
  ) {}

  at(ms: number): number {
    if (ms <= this.originMs) return 0;
    const elapsed = ms - this.originMs;
    const bucket = Math.floor(elapsed / BUCKET_MS);
    if (bucket < this.#bucket) {
      // The clock went back: sum again from the start rather than keep a later sum.
      this.#bucket = 0;
      this.#sum = 0;
    }
    while (this.#bucket < bucket) {
      this.#sum += this.weight(this.#bucket);
      this.#bucket += 1;
    }
    return this.#sum + this.weight(bucket) * ((elapsed - bucket * BUCKET_MS) / BUCKET_MS);
  }
}
