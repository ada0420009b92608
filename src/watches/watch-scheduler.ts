import type { Logger } from '../logger.js';
import type { Clock } from '../time/clock.js';
import type { WatchTurn } from './watch-service.js';

export interface WatchSchedulerOptions {
  turn(): Promise<WatchTurn>;
  clock: Clock;
  logger: Logger;
  /** Longest sleep between two looks (another replica may have changed the watches). @default 15 s */
  pollMs?: number;
  /** How soon to look again when no report slot was spare or another replica had the check. @default 2 s */
  retryMs?: number;
  /** Keeps a running check in view of shutdown. */
  track?: <T>(work: Promise<T>) => Promise<T>;
  /** Hears how each turn ended (`error`: it threw). */
  onTurn?: (outcome: WatchTurn['kind'] | 'error') => void;
}

/** Runs the watch service's turns one after another: at most one check in flight per process. */
export class WatchScheduler {
  readonly #o: WatchSchedulerOptions;
  readonly #pollMs: number;
  readonly #retryMs: number;
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  #stopped = true;

  constructor(options: WatchSchedulerOptions) {
    this.#o = options;
    this.#pollMs = options.pollMs ?? 15_000;
    this.#retryMs = options.retryMs ?? 2_000;
  }

  start(): void {
    this.#stopped = false;
    this.#schedule(0);
  }

  /** Looks again now (a watch was added). */
  poke(): void {
    if (!this.#stopped && !this.#running) this.#schedule(0);
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #schedule(delayMs: number): void {
    clearTimeout(this.#timer);
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#run(), Math.max(0, delayMs));
    this.#timer.unref();
  }

  async #run(): Promise<void> {
    if (this.#running || this.#stopped) return;
    this.#running = true;
    let delay = this.#pollMs;
    let outcome: WatchTurn['kind'] | 'error';
    try {
      const turn = this.#o.track ? await this.#o.track(this.#o.turn()) : await this.#o.turn();
      outcome = turn.kind;
      switch (turn.kind) {
        case 'checked':
          delay = 0;
          break;
        case 'no-spare-slot':
        case 'claimed-elsewhere':
        case 'turn-elsewhere':
        case 'failed':
        case 'held':
          delay = this.#retryMs;
          break;
        case 'idle':
          delay = turn.nextAt === undefined ? this.#pollMs : Math.min(this.#pollMs, turn.nextAt - this.#o.clock.now());
          break;
      }
    } catch (error) {
      outcome = 'error';
      this.#o.logger.warn('A watch turn failed', { error });
      delay = this.#retryMs;
    } finally {
      this.#running = false;
    }
    this.#schedule(delay);
    // Told once the next turn is set: a listener that throws neither stops the turns nor counts twice.
    try {
      this.#o.onTurn?.(outcome);
    } catch (error) {
      this.#o.logger.warn('A watch turn listener failed', { error });
    }
  }
}
