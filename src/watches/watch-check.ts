import type { Logger } from '../logger.js';
import { soldFigure } from '../reports/report-figures.js';
import type { EventReport } from '../ticketing/schemas.js';
import type { Clock } from '../time/clock.js';
import { baselineFrom, mayAlert } from './alert-quieting.js';
import type { ConditionState, EventCheck, Watch } from './watch.js';
import type { WatchForecast } from './watch-chat.js';
import { judge } from './watch-condition.js';
import { pauseFor, type WatchFigures } from './watch-figures.js';
import type { WatchPace } from './watch-pace.js';
import type { KnownCheck, WatchPosts } from './watch-posts.js';
import type { WatchStore } from './watch-store.js';

export interface WatchCheckOptions<M> {
  store: WatchStore;
  posts: WatchPosts<M>;
  clock: Clock;
  logger: Logger;
  /** How often each watched event is checked now (the cards say it). */
  pace: WatchPace;
  /** Each event's forecast at its last check here, for the cards (`WatchPosts` reads it). */
  ahead: Map<string, WatchForecast>;
  /** A watch's figures through the figures rule. */
  figures: WatchFigures;
  /** The event's forecast from its stored history, with the report just read. */
  forecast?: ((eventId: string, report: EventReport) => Promise<WatchForecast | undefined>) | undefined;
  /** How long a check waits for another replica's check of the event to end before it fails. */
  waitMs: number;
  /** Hears each check: where its report came from, and the time since the event's previous check. */
  onCheck?: ((source: 'watch' | 'person', sincePreviousMs: number | undefined) => void) | undefined;
}

/** Conditions measured between checks, from the baseline on (a snooze's end moves it). */
const MOVEMENT: ReadonlySet<ConditionState['condition']['kind']> = new Set(['sold-since', 'stall']);

/** A change to one condition's state, applied to the state as stored. */
type ConditionChange = (state: ConditionState) => ConditionState;

/**
 * A report of a watched event, carried to its watches: recorded as the event's check, judged by
 * each watch's conditions against the check before (and the forecast), each crossing alerted once
 * in the card's thread, each card edited. Whoever read the report (the scheduler's spare slot or a
 * person) hands it here.
 */
export class WatchCheck<M> {
  readonly #o: WatchCheckOptions<M>;

  constructor(options: WatchCheckOptions<M>) {
    this.#o = options;
  }

  /**
   * Records a check of the event and carries it to each of its watches, as the event's one check
   * in progress (`WatchStore.checking`, across replicas too): checks of an event are carried one
   * after another, so a check whose report was read before the one recorded is dropped, and each
   * check carried finds the states the check before it left.
   */
  async apply(eventId: string, report: EventReport, source: 'watch' | 'person', readAt?: number): Promise<void> {
    // Stamped before the wait: checks are ordered by when their reports were read.
    const now = Math.min(readAt ?? Number.POSITIVE_INFINITY, this.#o.clock.now());
    await this.#o.store.checking(eventId, () => this.#applyInTurn(eventId, report, source, now), this.#o.waitMs);
  }

  async #applyInTurn(eventId: string, report: EventReport, source: 'watch' | 'person', now: number): Promise<void> {
    const previous = await this.#o.store.lastCheck(eventId);
    if (previous && previous.checkedAt >= now) return;
    const sold = soldFigure(report)?.value;
    const previousSold = previous ? soldFigure(previous.report)?.value : undefined;
    const rose = sold !== undefined && (previousSold === undefined || sold > previousSold);
    const check: EventCheck = {
      eventId,
      checkedAt: now,
      report,
      previousSold,
      previousCheckedAt: previous?.checkedAt,
      // The first check is the baseline: a stall is counted from it.
      lastSaleAt: rose || previous?.lastSaleAt === undefined ? now : previous.lastSaleAt,
      checks: (previous?.checks ?? 0) + 1,
    };
    const read = await this.#o.store.ofEvent(eventId);
    // Undefined: the event is watched no more; another check: one a replica still on a version
    // without the event's section recorded meanwhile (during a rolling upgrade).
    if ((await this.#o.store.recordCheck(check)) !== check) return;
    this.#o.onCheck?.(source, previous ? now - previous.checkedAt : undefined);
    const watches = read.filter((w) => !w.paused);
    // One forecast a check, from the stored history: every watch of the event judges it.
    const ahead = watches.length > 0 ? await this.#forecastOf(eventId, report) : undefined;
    if (ahead) this.#o.ahead.set(eventId, ahead);
    // The cards say this check and the pace of checks: read once for every watch of the event.
    const known = { check, intervalMs: watches.length > 0 ? await this.#o.pace.intervalMs() : 0 };
    for (const watch of watches) {
      try {
        await this.#carry(watch, check, known, ahead);
      } catch (error) {
        this.#o.logger.warn('A watch could not be brought up to date', { channel: watch.channel, eventId, error });
      }
    }
  }

  async #forecastOf(eventId: string, report: EventReport): Promise<WatchForecast | undefined> {
    try {
      return await this.#o.forecast?.(eventId, report);
    } catch (error) {
      this.#o.logger.info('No forecast for a watch check', { eventId, error });
      return undefined;
    }
  }

  /**
   * Judges each condition of one watch on a check, alerts each crossing once, edits the card. What
   * the check changes is written before an alert goes out (a crash may end the check there), and a
   * crossing as soon as its alert is out. An alert that fails leaves its condition armed for the
   * next check, and the others are judged all the same.
   */
  async #carry(watch: Watch, check: EventCheck, known: KnownCheck, ahead?: WatchForecast): Promise<void> {
    // Figures go only as the figures rule allows: a channel shared with another organization that
    // nobody confirmed, or a watch speaking for a guest, pauses (its owner is told); Slack not
    // saying holds this watch's judgement until a check when it does (nothing is posted, nothing
    // re-armed or crossed, so no crossing is lost or alerted on figures that may not go there).
    const gate = await this.#o.figures(watch, check);
    if ('withheld' in gate) {
      const pause = pauseFor(gate.withheld);
      if (pause) await this.#o.posts.pause(watch, pause);
      else this.#o.logger.info('A watch check is held: who reads its figures is not known', { channel: watch.channel });
      return;
    }
    const shown = gate.shown;
    // Movement compares only checks made while this watch existed and since its last snooze: a
    // check from before (a watch of the event elsewhere, one ended since, a snoozed hour) is no
    // baseline for it.
    const baseline = baselineFrom(watch);
    const sinceWatched = check.previousCheckedAt !== undefined && check.previousCheckedAt >= baseline;
    const reading = {
      report: check.report,
      previousSold: sinceWatched ? check.previousSold : undefined,
      lastSaleAt: check.lastSaleAt === undefined ? undefined : Math.max(check.lastSaleAt, baseline),
      now: check.checkedAt,
      forecast: ahead?.forecast,
      startsAtMs: ahead?.startsAtMs,
      comparables: ahead?.comparables,
    };
    const write = new ConditionWrites(watch, this.#o.store);
    let failed: { error: unknown } | undefined;
    for (const state of watch.conditions) {
      const judgement = judge(state.condition, reading);
      if ('unknown' in judgement) {
        write.change(state.key, (c) => ({ ...c, unknown: judgement.unknown, pending: judgement.pending }));
        continue;
      }
      // Its figure is the card's, read in the same check, snoozed or not.
      const seen = {
        lastValue: judgement.value,
        valueAt: check.checkedAt,
        unknown: undefined,
        pending: undefined,
        measured: judgement.measured,
      };
      // Snoozed: nothing crossed nor re-armed, judged again (and alerted) on the first check after the snooze.
      if (!mayAlert(watch, state.condition, check.checkedAt)) {
        // Movement is measured only from the snooze's end: until then it has no figure to say.
        const measured = MOVEMENT.has(state.condition.kind) ? { ...seen, lastValue: undefined } : seen;
        write.change(state.key, (c) => ({ ...c, ...measured }));
        continue;
      }
      if (state.armed && judgement.met) {
        await write.flush();
        let posted: Awaited<ReturnType<WatchPosts<M>['alert']>>;
        try {
          posted = await this.#o.posts.alert(watch, { ...state, ...seen }, judgement.value, shown);
        } catch (error) {
          failed ??= { error };
          continue;
        }
        if (posted === 'refused') return;
        // 'busy': another holder is alerting this crossing (a replica that died with it): it records it.
        const crossing = posted === 'busy' ? {} : { armed: false, crossings: state.crossings + 1 };
        write.change(state.key, (c) => ({ ...c, ...seen, ...crossing }));
        await write.flush();
      }
      // A clearing re-arms the condition for its next crossing.
      else write.change(state.key, (c) => ({ ...c, ...seen, ...(judgement.cleared ? { armed: true } : {}) }));
    }
    const current = (await write.flush()) ?? (await this.#o.store.get(watch.channel, watch.eventId));
    // A watch paused meanwhile (its channel refused a post, or turned out shared) keeps its card as paused.
    if (current && current.createdAt === watch.createdAt && !current.paused)
      await this.#o.posts.showCard(current, 'active', known);
    if (failed) throw failed.error;
  }
}

/** The condition changes one check makes to one watch, gathered and written together. */
class ConditionWrites {
  readonly #changes = new Map<string, ConditionChange>();

  constructor(
    readonly watch: Watch,
    readonly store: WatchStore,
  ) {}

  change(key: string, change: ConditionChange): void {
    this.#changes.set(key, change);
  }

  /** Writes what was gathered, to this watch only (not one set again since); the watch as written, if anything was. */
  async flush(): Promise<Watch | undefined> {
    if (this.#changes.size === 0) return undefined;
    const changes = new Map(this.#changes);
    this.#changes.clear();
    return this.store.update(this.watch.channel, this.watch.eventId, (current) => {
      if (!current || current.createdAt !== this.watch.createdAt) return undefined;
      return { ...current, conditions: current.conditions.map((c) => changes.get(c.key)?.(c) ?? c) };
    });
  }
}
