import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { awaitReport, type ReplyTarget, replyView } from '../../src/reports/awaited-report.js';
import type { ReportFlow } from '../../src/reports/report-flow.js';
import type { ReportStatus } from '../../src/reports/report-status.js';
import type { ReportDelivery } from '../../src/reports/report-surface.js';
import { userMessageFor } from '../../src/slack/replies/user-message.js';
import { openStore } from '../../src/store/open-store.js';
import type { StoreHandle } from '../../src/store/store-handle.js';
import {
  CancelledError,
  InvalidRequestError,
  NotFoundError,
  RateLimitedError,
  SchemaError,
} from '../../src/ticketing/errors.js';
import { systemClock } from '../../src/time/clock.js';

/*
 * A caller waiting for a report (a promo code looked up in it): answered where it asked in one
 * process, or through the store by whichever replica fetched it. The flows here stand in for the
 * queues (their own suites cover them); the store is the real one (SQLite in memory).
 */

let store: StoreHandle | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

const ask = { eventId: 'evt_1', label: 'Gala', userId: 'U0EDITOR' };
const never = new AbortController().signal;

/** One process: the flow shows the last status on the view it opened, before `follow` returns. */
function answeredHere(last: ReportStatus): ReportFlow<ReplyTarget> {
  return {
    async follow(_ask, surface) {
      const view = await surface.open({ state: 'queued', position: 1, estimatedWaitMs: 0 });
      await view.show({ state: 'fetching', position: 0, estimatedWaitMs: 0 });
      await view.show(last);
    },
  };
}

/**
 * Replicas: the flow queues the request and returns once it is being fetched; another replica
 * finishes it later through `replyView`, as the shared queue's `deliver` does.
 */
function answeredElsewhere(opened: StoreHandle, last: ReportStatus, keys: string[] = []): ReportFlow<ReplyTarget> {
  return {
    async follow(asked, surface) {
      const view = await surface.open({ state: 'queued', position: 1, estimatedWaitMs: 0 });
      keys.push(view.where.key);
      const delivery: ReportDelivery<ReplyTarget> = { ...asked, where: view.where, messageKey: 'k' };
      // Later, and from a view built from the delivery alone (JSON), as another replica has it.
      const carried = JSON.parse(JSON.stringify(delivery)) as ReportDelivery<ReplyTarget>;
      setTimeout(() => void replyView(opened.keyValue, carried.where, silentLogger).show(last), 300);
    },
  };
}

const opened = () => {
  if (!store) throw new Error('no store');
  return store;
};

const deps = (opened: StoreHandle | undefined) => ({ store: opened?.keyValue, clock: systemClock, stopping: never });

describe('a report a caller waits for', () => {
  it('in one process, is the report the flow shows, with no store', async () => {
    const report = await awaitReport(
      answeredHere({ state: 'report', report: { ticketsSold: 3 } }),
      deps(undefined),
      ask,
    );
    expect(report).toEqual({ ticketsSold: 3 });
  });

  it('in one process, rejects with the fetch error itself', async () => {
    const error = new NotFoundError('no such event');
    await expect(awaitReport(answeredHere({ state: 'failed', error }), deps(undefined), ask)).rejects.toBe(error);
  });

  it('with replicas, is read from the store where the replica that fetched it left it, and the reply is removed', async () => {
    store = await openStore('sqlite://:memory:');
    const keys: string[] = [];
    const flow = answeredElsewhere(store, { state: 'report', report: { ticketsSold: 9 } }, keys);
    expect(await awaitReport(flow, deps(store), ask)).toEqual({ ticketsSold: 9 });
    expect(keys).toHaveLength(1);
    expect(await store.keyValue.get(`report-reply:${keys[0]}`)).toBeUndefined();
  });

  it('with replicas, rejects with an error that reads as it did on the replica that failed', async () => {
    store = await openStore('sqlite://:memory:');
    for (const original of [
      new RateLimitedError('report limit', { retryAfterMs: 42_000, scope: 'report' }),
      new SchemaError('the report is not an object'),
      new InvalidRequestError('<!channel> refused'),
    ]) {
      const flow = answeredElsewhere(opened(), { state: 'failed', error: original });
      const rejected = await awaitReport(flow, deps(opened()), ask).catch((error: unknown) => error);
      expect(rejected).toBeInstanceOf(original.constructor);
      expect(userMessageFor(rejected)).toBe(userMessageFor(original));
    }
  });

  it('with replicas, says a request Redis lost came to nothing in the words of a store failure', async () => {
    store = await openStore('sqlite://:memory:');
    const rejected = await awaitReport(answeredElsewhere(store, { state: 'lost' }), deps(store), ask).catch(
      (error: unknown) => error,
    );
    expect(userMessageFor(rejected)).toMatch(/^I couldn't reach my own storage/);
  });

  it('with replicas, takes the report from the shared cache when no reply comes (the fetching replica could not leave one)', async () => {
    store = await openStore('sqlite://:memory:');
    const flow: ReportFlow<ReplyTarget> = {
      async follow(_ask, surface) {
        await surface.open({ state: 'queued', position: 1, estimatedWaitMs: 0 });
      },
    };
    let looks = 0;
    const cached = async () => (++looks >= 3 ? { ticketsSold: 4 } : undefined);
    expect(await awaitReport(flow, { ...deps(store), cached }, ask)).toEqual({ ticketsSold: 4 });
    expect(looks).toBe(3);
  });

  it('asks for nothing once shutdown has begun', async () => {
    let asked = 0;
    const flow: ReportFlow<ReplyTarget> = {
      async follow() {
        asked += 1;
      },
    };
    const stopped = AbortSignal.abort();
    await expect(
      awaitReport(flow, { store: undefined, clock: systemClock, stopping: stopped }, ask),
    ).rejects.toBeInstanceOf(CancelledError);
    expect(asked).toBe(0);
  });

  it('gives up waiting once shutdown begins, with a cancellation', async () => {
    store = await openStore('sqlite://:memory:');
    const stopping = new AbortController();
    const flow: ReportFlow<ReplyTarget> = {
      async follow(_ask, surface) {
        await surface.open({ state: 'queued', position: 1, estimatedWaitMs: 0 });
        setTimeout(() => stopping.abort(), 100);
      },
    };
    const waited = awaitReport(flow, { store: store.keyValue, clock: systemClock, stopping: stopping.signal }, ask);
    await expect(waited).rejects.toBeInstanceOf(CancelledError);
  });
});
