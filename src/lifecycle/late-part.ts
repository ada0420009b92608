/**
 * A part of the bot that other parts refer to before it is built (a metric read at scrape time, a
 * callback that runs once the bot is up): set once, read only after.
 */
export class LatePart<T> {
  readonly #what: string;
  #value: T | undefined;

  constructor(what: string) {
    this.#what = what;
  }

  set(value: T): T {
    this.#value = value;
    return value;
  }

  /** The part; throws if it is read before it was built (a wiring mistake, not a runtime state). */
  get(): T {
    if (this.#value === undefined) throw new Error(`${this.#what} is not built yet`);
    return this.#value;
  }

  /** The part, or undefined when there is none (yet, or in this deployment). */
  peek(): T | undefined {
    return this.#value;
  }
}
