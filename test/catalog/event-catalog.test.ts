import { afterEach, describe, expect, it } from 'vitest';
import { type CatalogShare, storeCatalogShare } from '../../src/catalog/catalog-share.js';
import { EventCatalog } from '../../src/catalog/event-catalog.js';
import { openStore } from '../../src/store/open-store.js';
import { type Rig, startRig } from '../helpers/ticketing.js';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

class TestClock {
  constructor(public time: number) {}
  now = () => this.time;
}

const ORG = { limit: 180, windowMs: 60_000 };

/** Replicas' catalogs on one simulator, sharing crawls through one store; `replica(owner)` adds one. */
async function sharedRig(eventCount: number, orgLimit = ORG) {
  const current = await startRig({ eventCount });
  rig = current;
  const store = await openStore('sqlite://:memory:');
  const share = storeCatalogShare(store.keyValue, store.claims);
  const clock = new TestClock(Date.now());
  const looks = lookCounter();
  const replica = (owner: string) =>
    new EventCatalog({
      client: current.client,
      orgLimit,
      clock,
      share: { share: looks.counting(share), owner },
      // A waiting replica looks again every 5 ms, not every 250: the tests wait for looks, not time.
      sharedPollMs: 5,
    });
  return { sim: current.sim, store, share, clock, replica, looks };
}

/**
 * Counts the replicas' looks at the published crawl (`stamp()`), so a test can wait for a waiting
 * replica to have looked again instead of sleeping for about one poll.
 */
function lookCounter() {
  let looks = 0;
  const waiters: { atLeast: number; resolve: () => void }[] = [];
  return {
    counting: (share: CatalogShare): CatalogShare => ({
      ...share,
      stamp: async () => {
        const stamp = await share.stamp();
        looks += 1;
        for (const waiter of waiters.filter((each) => looks >= each.atLeast)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
        return stamp;
      },
    }),
    /** Resolves once the replicas have looked `count` more times. */
    more: (count: number) =>
      new Promise<void>((resolve) => {
        waiters.push({ atLeast: looks + count, resolve });
      }),
  };
}

describe('EventCatalog', () => {
  it('answers 50 different ids and an unknown one from one crawl, whatever order the API lists in', async () => {
    rig = await startRig({ eventCount: 1_000, listOrder: 'shuffled' });
    const catalog = new EventCatalog({ client: rig.client, orgLimit: ORG, clock: new TestClock(Date.now()) });
    const ids = rig.sim.catalog.events.slice(0, 50).map((event) => event.id);
    const found = await Promise.all(ids.map((id) => catalog.lookup(id.slice(4))));
    expect(found.map((each) => each.event?.id)).toEqual(ids);
    expect((await catalog.lookup('00000000-0000-4000-8000-000000000000')).event).toBeUndefined();
    expect(rig.sim.stats().requests).toBe(10);
    expect(catalog.crawls).toBe(1);
    const starts = (await catalog.all()).map((event) => event.startsAtMs);
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
  });

  it('keeps the refresh within 10% of the budget: the period grows with the crawl cost', async () => {
    rig = await startRig({ eventCount: 1_000 });
    const clock = new TestClock(Date.now());
    const catalog = new EventCatalog({ client: rig.client, orgLimit: ORG, clock });
    expect(catalog.periodMs).toBe(60_000); // at least a minute, before anything is known
    await catalog.snapshot();
    // 10 pages; 10% of 180 a minute is 18: one crawl every 10 / 18 minutes at most, floored at a minute.
    expect(catalog.periodMs).toBe(60_000);
    const big = new EventCatalog({ client: rig.client, orgLimit: { limit: 18, windowMs: 60_000 }, clock });
    await big.snapshot();
    expect(big.periodMs).toBe(Math.ceil((10 * 60_000) / 1.8));
  });

  it('refreshes once for everyone when due, and not before; a miss in a fresh catalog costs nothing', async () => {
    rig = await startRig({ eventCount: 250 });
    const clock = new TestClock(Date.now());
    const catalog = new EventCatalog({ client: rig.client, orgLimit: ORG, clock });
    await catalog.snapshot();
    const unknown = '00000000-0000-4000-8000-000000000000';
    clock.time += 30_000;
    await Promise.all(Array.from({ length: 20 }, () => catalog.lookup(unknown)));
    expect(catalog.crawls).toBe(1);
    clock.time += 31_000; // the period (one minute) has passed
    const answers = await Promise.all(Array.from({ length: 20 }, () => catalog.lookup(unknown)));
    expect(catalog.crawls).toBe(2);
    expect(new Set(answers.map((answer) => answer.asOf)).size).toBe(1);
    expect(rig.sim.stats().requests).toBe(6);
  });

  it('keeps answering from the previous crawl when a refresh fails', async () => {
    rig = await startRig({ eventCount: 150 });
    const clock = new TestClock(Date.now());
    const catalog = new EventCatalog({ client: rig.client, orgLimit: ORG, clock });
    const first = await catalog.snapshot();
    rig.sim.knobs.faultRate = 1;
    rig.sim.knobs.faultKinds = ['5xx'];
    clock.time += 61_000;
    const second = await catalog.snapshot();
    expect(second).toBe(first);
    expect(catalog.crawls).toBe(2);
  });

  it('lets replicas share one crawl: one crawls and publishes, the others take it with no request', async () => {
    const { sim, store, clock, replica } = await sharedRig(250);
    const replicas = ['a', 'b', 'c'].map(replica);
    const snapshots = await Promise.all(replicas.map((catalog) => catalog.snapshot()));
    expect(replicas.map((catalog) => catalog.crawls).reduce((sum, n) => sum + n, 0)).toBe(1);
    expect(sim.stats().requests).toBe(3);
    expect(snapshots.map((snapshot) => snapshot.events.length)).toEqual([250, 250, 250]);
    expect(new Set(snapshots.map((snapshot) => snapshot.asOf)).size).toBe(1);
    // When the period has passed, again one crawl for all.
    clock.time += 61_000;
    await Promise.all(replicas.map((catalog) => catalog.snapshot()));
    expect(replicas.map((catalog) => catalog.crawls).reduce((sum, n) => sum + n, 0)).toBe(2);
    expect(sim.stats().requests).toBe(6);
    await store.close();
  });

  it('crawls itself once the replica that claimed the crawl has been silent too long', async () => {
    const { store, share, clock, replica, looks } = await sharedRig(50);
    // A replica claimed the first crawl and died.
    expect(await share.claimNext(0, 'dead', clock.now(), 300_000)).toBe(true);
    const survivor = replica('alive');
    // Its first look finds nothing published, the second is its first poll while it waits.
    const polled = looks.more(2);
    const waiting = survivor.snapshot();
    await polled;
    expect(survivor.crawls).toBe(0);
    clock.time += 600_001; // ten windows: the claim is stale
    await expect(waiting).rejects.toThrow('did not finish');
    expect((await survivor.snapshot()).events).toHaveLength(50);
    expect(survivor.crawls).toBe(1);
    await store.close();
  });

  it('answers from the last published crawl when the replica crawling the next one is late', async () => {
    const { store, share, clock, replica } = await sharedRig(40, { limit: 180, windowMs: 200 });
    const first = replica('first');
    const published = await first.snapshot();
    // The period passes; a replica claims the next crawl and dies.
    clock.time += 1_000;
    expect(await share.claimNext(published.asOf, 'dead', clock.now(), 60_000)).toBe(true);
    const late = replica('late');
    const started = Date.now();
    expect((await late.snapshot()).asOf).toBe(published.asOf);
    expect(Date.now() - started).toBeLessThan(2_000);
    // Known to be late: the next reader is answered at once.
    const again = Date.now();
    expect((await late.snapshot()).asOf).toBe(published.asOf);
    expect(Date.now() - again).toBeLessThan(100);
    expect(late.crawls).toBe(0);
    await store.close();
  });
});
