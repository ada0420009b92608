import type { Queue } from 'bullmq';
import type { Logger } from '../../logger.js';
import type { ScriptRunner } from '../../ticketing/shared-budget.js';
import { sleep } from '../../time/clock.js';
import {
  ANYONE_WAITING,
  MAX_PRIORITY,
  SEND_BACK,
  START_TURN,
  TURN,
  TURN_NOW,
  TURN_WAIT_MS,
} from './shared-turn-scripts.js';

/** The keys of turns: the rounds' state, the started jobs, BullMQ's queued and active jobs, its marker. */
export interface TurnKeys {
  state: string;
  started: string;
  wait: string;
  prioritized: string;
  delayed: string;
  active: string;
  marker: string;
}

export interface SharedReportTurnsOptions {
  run: ScriptRunner;
  keys: TurnKeys;
  /** A person's own key of turns (their last round), in the queue's namespace. */
  personKey: (requester: string) => string;
  /** The queue's own prefix, as its scripts build a job's key from its id. */
  jobKeyPrefix: string;
  /** How long a request may wait: a person's last round holds nobody back after it. */
  deadlineMs: number;
  /** How long a job may be in hand: a started mark is kept while it may run. */
  lockMs: number;
  /** How long a job waits for those handed out whose turn comes first to start. @default TURN_WAIT_MS */
  turnWaitMs?: number | undefined;
  logger: Logger;
}

/**
 * People take turns across replicas (the scripts of `shared-turn-scripts.ts`): each request gets
 * its person's next round, which its BullMQ priority follows; a job handed out starts only once the
 * jobs whose turn comes first have; one sent back goes to the head of its round.
 */
export class SharedReportTurns {
  readonly #o: SharedReportTurnsOptions;

  /** The turns of a BullMQ queue, their keys in its namespace beside its own. */
  static of(
    queue: Queue,
    options: Pick<SharedReportTurnsOptions, 'run' | 'deadlineMs' | 'lockMs' | 'turnWaitMs' | 'logger'>,
  ): SharedReportTurns {
    const { keys } = queue;
    return new SharedReportTurns({
      ...options,
      keys: {
        state: queue.toKey('turns'),
        started: queue.toKey('turns-started'),
        wait: keys.wait as string,
        prioritized: keys.prioritized as string,
        delayed: keys.delayed as string,
        active: keys.active as string,
        marker: keys.marker as string,
      },
      personKey: (requester) => queue.toKey(`turns:${requester}`),
      jobKeyPrefix: queue.toKey(''),
    });
  }

  constructor(options: SharedReportTurnsOptions) {
    this.#o = options;
  }

  /** The next turn of `requester` (see `TURN`), the same on every replica. */
  async next(requester: string | undefined): Promise<{ round: number; priority: number }> {
    const person = requester !== undefined && requester !== '';
    const { state, wait, prioritized, delayed, active } = this.#o.keys;
    const lastKey = person ? this.#o.personKey(requester) : state;
    const [round, priority] = (await this.#o.run(
      TURN,
      [state, lastKey, wait, prioritized, delayed, active],
      // A person's last round is kept as long as their request may wait: after that, it holds nobody back.
      [person ? '1' : '0', String(Math.max(1, Math.ceil(this.#o.deadlineMs))), String(MAX_PRIORITY)],
    )) as [number, number];
    return { round: Number(round), priority: Number(priority) };
  }

  /**
   * A job has started (`START_TURN`): jobs handed out after it may take their slots, and later
   * newcomers join its round. Best effort: a missed mark makes those after it wait `TURN_WAIT_MS`.
   */
  async started(jobId: string, round: number | undefined): Promise<void> {
    await this.#o
      .run(
        START_TURN,
        [this.#o.keys.state, this.#o.keys.started],
        [typeof round === 'number' ? String(round) : '', jobId, String(this.#o.deadlineMs + this.#o.lockMs)],
      )
      .catch((error: unknown) => this.#o.logger.warn('Could not advance the report turns', { error }));
  }

  /**
   * Whether a job handed out may take its slot now (`TURN_NOW`): it waits (briefly) for the jobs
   * handed out whose turn comes first to start, and goes back when one whose turn comes first waits.
   */
  async inTurn(jobId: string, priority: number | undefined): Promise<boolean> {
    const { active, started, prioritized } = this.#o.keys;
    const keys = [active, started, prioritized];
    const args = [jobId, String(priority ?? 0), this.#o.jobKeyPrefix];
    const giveUpAt = performance.now() + (this.#o.turnWaitMs ?? TURN_WAIT_MS);
    for (;;) {
      // Redis refusing the script: the slot itself is still the rule.
      const now = Number(await this.#o.run(TURN_NOW, keys, args).catch(() => 1));
      if (now === -1) return false;
      if (now === 1 || performance.now() >= giveUpAt) return true;
      await sleep(5);
    }
  }

  /** Whether any request waits in Redis (`ANYONE_WAITING`: a job a worker has just taken and not yet started counts too). */
  async anyoneWaiting(): Promise<boolean> {
    const { wait, prioritized, delayed, active, started } = this.#o.keys;
    return Number(await this.#o.run(ANYONE_WAITING, [wait, prioritized, delayed, active, started], [])) === 1;
  }

  /** Puts the job back at the head of its round (`SEND_BACK`). */
  async sendBack(jobId: string): Promise<void> {
    await this.#o.run(SEND_BACK, [this.#o.keys.marker, this.#o.keys.started], [jobId]);
  }
}
