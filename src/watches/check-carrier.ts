import type { Logger } from '../logger.js';
import { soldFigure } from '../reports/report-figures.js';
import type { EventReport } from '../ticketing/schemas.js';
import type { Clock } from '../time/clock.js';
import { baselineFrom, mayAlert } from './alert-quieting.js';
import type { ConditionState, EventCheck, Watch } from './watch.js';
import type { WatchForecast } from './watch-chat.js';
import { judge } from './watch-condition.js';
import { pauseFor, type WatchGate } from './watch-figures.js';
import type { KnownCheck, WatchPosts } from './watch-posts.js';
import type { WatchStore } from './watch-store.js';

export interface CheckCarrierOptions<M> {
  store: WatchStore;
  posts: WatchPosts<M>;
  clock: Clock;
  logger: Logger;
  /** How often each watched event is checked now (the cards say it). */
  intervalMs: () => Promise<number>;
  /** A watch's figures through the figures rule (`WatchService.figures`). */
  figures: <T>(watch: Watch, figures: T) => Promise<WatchGate<T>>;
  /** The event's forecast from its stored history, with the report just read. */
  forecast?: ((eventId: string, report: EventReport) => Promise<WatchForecast | undefined>) | undefined;
  /** Hears each check: where its report came from, and the time since the event's previous check. */
  onCheck?: ((source: 'watch' | 'person', sincePreviousMs: number | undefined) => void) | undefined;
}

/** A change to one condition's state, applied to the state as stored. */
type ConditionChange = (state: ConditionState) => ConditionState;

/**
 * A report of a watched event, carried to its watches: recorded as the event's check, judged by
 * each watch's conditions against the check before (and the forecast), each crossing alerted once
 * in the card's thread, each card edited. Whoever read the report (the scheduler's spare slot or a
 * person) hands it here.
 */
export class CheckCarrier<M> {
  readonly #o: CheckCarrierOptions<M>;
  /** Each event's forecast at its last check here (what its card shows). */
  readonly #ahead = new Map<string, WatchForecast>();

  constructor(options: CheckCarrierOptions<M>) {
    this.#o = options;
  }

  /** The event's forecast at its last check here, if one was known. */
  ahead(eventId: string): WatchForecast | undefined {
    return this.#ahead.get(eventId);
  }

  /** Records a check of the event and carries it to each of its watches. */
  async apply(eventId: string, report: EventReport, source: 'watch' | 'person', readAt?: number): Promise<void> {
    const now = Math.min(readAt ?? Number.POSITIVE_INFINITY, this.#o.clock.now());
    const previous = await this.#o.store.lastCheck(eventId);
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
    // The watches are read before the check is recorded: no check newer than this one can have
    // written to them yet (it records after this one), so what this check's copy says of a
    // condition's crossings is what it was before this check, as the writes below assume.
    if (previous && previous.checkedAt >= now) return; // a newer check is recorded (checked again below)
    const read = await this.#o.store.ofEvent(eventId);
    const recorded = await this.#o.store.recordCheck(check);
    // A later report is already recorded, or the event is watched no more.
    if (recorded !== check) return;
    this.#o.onCheck?.(source, previous ? now - previous.checkedAt : undefined);
    const watches = read.filter((w) => !w.paused);
    // One forecast a check, from the stored history: every watch of the event judges it.
    const ahead = watches.length > 0 ? await this.#forecastOf(eventId, report) : undefined;
    if (ahead) this.#ahead.set(eventId, ahead);
    // The cards say this check and the pace of checks: read once for every watch of the event.
    const known = { check, intervalMs: watches.length > 0 ? await this.#o.intervalMs() : 0 };
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
   * the check changes is written in one update, and before an alert goes out what was judged before
   * it (a crash may end the check there); a crossing as soon as its alert is out. An alert that
   * fails leaves its condition armed for the next check, and the others are judged all the same.
   * A check older than the one the watch's states already reflect (carried slowly, or on another
   * replica, while a newer one was carried) records only its crossings and leaves the card to the
   * newer one, so a card's figures and its conditions always come from the same check.
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
    };
    const write = new ConditionWrites(watch, check.checkedAt, this.#o.store);
    let failed: { error: unknown } | undefined;
    for (const state of watch.conditions) {
      // Snoozed: left as it stands, judged again (and alerted) on the first check after the snooze.
      if (!mayAlert(watch, state.condition, check.checkedAt)) continue;
      const judgement = judge(state.condition, reading);
      if ('unknown' in judgement) {
        write.judged(state.key, (c) => ({ ...c, unknown: judgement.unknown, pending: judgement.pending }));
        continue;
      }
      if (state.armed && judgement.met) {
        await write.flush();
        const fired = { ...state, lastValue: judgement.value, unknown: undefined, pending: undefined };
        let posted: Awaited<ReturnType<WatchPosts<M>['alert']>>;
        try {
          posted = await this.#o.posts.alert(watch, fired, judgement.value, shown);
        } catch (error) {
          failed ??= { error };
          continue;
        }
        if (posted === 'refused') return;
        write.judged(state.key, (c) => ({ ...c, lastValue: judgement.value, unknown: undefined, pending: undefined }));
        // Another holder is alerting this crossing: it records it.
        if (posted === 'busy') continue;
        const crossing = state.crossings + 1;
        // Recorded already (by whoever alerted it), it is left to the checks since; a check made
        // after this one that saw the figure clear leaves the condition armed for the next crossing.
        write.happened(state.key, (c) =>
          c.crossings >= crossing
            ? c
            : {
                ...c,
                armed: (c.clearedAt ?? Number.NEGATIVE_INFINITY) > check.checkedAt,
                crossings: crossing,
                crossedAt: check.checkedAt,
              },
        );
        await write.flush();
      } else {
        write.judged(state.key, (c) => ({ ...c, lastValue: judgement.value, unknown: undefined, pending: undefined }));
        // A clearing is something that happened, written even when a newer check was judged
        // meanwhile: it re-arms the condition when this check saw it disarmed and no crossing was
        // recorded since (a newer check that saw it disarmed may have seen it met again), or when
        // the crossing recorded since was alerted from an older check; and a crossing alerted from
        // a check older than it, recorded later, leaves the condition armed (`clearedAt`).
        if (judgement.cleared)
          write.happened(state.key, (c) => ({
            ...c,
            clearedAt: Math.max(c.clearedAt ?? check.checkedAt, check.checkedAt),
            armed:
              c.armed ||
              (c.crossings === state.crossings
                ? !state.armed
                : (c.crossedAt ?? Number.POSITIVE_INFINITY) < check.checkedAt),
          }));
      }
    }
    const current = (await write.flush({ judged: true })) ?? (await this.#o.store.get(watch.channel, watch.eventId));
    // A watch paused meanwhile (its channel refused a post, or turned out shared) keeps its card as paused.
    if (current && current.createdAt === watch.createdAt && !current.paused) {
      if (!judgedLater(current, check.checkedAt)) await this.#o.posts.showCard(current, 'active', known);
      else if (write.happenedAny) {
        // A crossing of this older check joined the states of the newer one: shown with that check.
        const shown = await this.#o.store.lastCheck(watch.eventId);
        if (shown && shown.checkedAt === current.judgedAt)
          await this.#o.posts.showCard(current, 'active', { ...known, check: shown });
      }
    }
    if (failed) throw failed.error;
  }
}

/** Whether what a condition says (armed, crossings) differs: a card shows that. */
const changedState = (a: ConditionState, b: ConditionState) => a.armed !== b.armed || a.crossings !== b.crossings;

/** Whether the watch's states already reflect a check made after `checkedAt`. */
const judgedLater = (watch: Watch, checkedAt: number) => (watch.judgedAt ?? Number.NEGATIVE_INFINITY) > checkedAt;

/**
 * The condition changes one check makes to one watch, gathered and written together: what it
 * judged (a value, a re-arm, "not known"), written only while no newer check has been judged, and
 * what happened (a crossing alerted, a clearing seen), written whenever (an alert out is an alert
 * out, a clearing a clearing), each written so as to leave what later checks recorded.
 */
class ConditionWrites {
  readonly #judged = new Map<string, ConditionChange>();
  readonly #happened = new Map<string, ConditionChange>();
  /** Whether something that happened changed what a condition says (armed, crossings). */
  happenedAny = false;

  constructor(
    readonly watch: Watch,
    readonly checkedAt: number,
    readonly store: WatchStore,
  ) {}

  judged(key: string, change: ConditionChange): void {
    this.#judged.set(key, change);
  }

  happened(key: string, change: ConditionChange): void {
    this.#happened.set(key, change);
  }

  /**
   * Writes what was gathered, to this watch only (not one set again since); `judged`: the check is
   * done with, so the watch is marked judged at it even with nothing else to write. The watch as
   * written, if anything was.
   */
  async flush(options: { judged?: boolean } = {}): Promise<Watch | undefined> {
    if (this.#judged.size === 0 && this.#happened.size === 0 && !options.judged) return undefined;
    const judged = new Map(this.#judged);
    const happened = new Map(this.#happened);
    this.#judged.clear();
    this.#happened.clear();
    return this.store.update(this.watch.channel, this.watch.eventId, (current) => {
      if (!current || current.createdAt !== this.watch.createdAt) return undefined;
      const fresh = !judgedLater(current, this.checkedAt);
      if (!fresh && happened.size === 0) return undefined;
      return {
        ...current,
        ...(fresh ? { judgedAt: this.checkedAt } : {}),
        conditions: current.conditions.map((c) => {
          const afterCrossing = happened.get(c.key)?.(c) ?? c;
          if (afterCrossing !== c && changedState(c, afterCrossing)) this.happenedAny = true;
          return fresh ? (judged.get(c.key)?.(afterCrossing) ?? afterCrossing) : afterCrossing;
        }),
      };
    });
  }
}
