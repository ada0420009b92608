import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { SimEvent } from '../../src/simulator/seed.js';
import { type Simulator, startSimulator } from '../../src/simulator/server.js';
import type { SlackCall } from '../helpers/fake-slack.js';
import { catalogReady, type Replica, useReplicas } from '../helpers/replicas.js';
import { commandBody, postSigned } from '../helpers/slack-requests.js';
import { sleep, waitFor } from '../helpers/wait-for.js';

/*
 * Watches across three bot processes on one redis-server, one simulator and one fake Slack: the
 * report limit and the minimum interval are scaled to a 1 s window (the test's minute), so a
 * watched event is due for a check every second and each replica's scheduler races for it.
 */

const SECRET = 'watch-replica-signing-secret';
const INTERVAL_MS = 1_000;
/** Timers, the Redis round trips of a turn and three processes on two cores: what "at once" may be off by. */
const JITTER_MS = 100;

const fleet = useReplicas(SECRET);
const { start, closers } = fleet;

function replicaEnv(sim: Simulator, db: number, apiUrl = sim.url): Record<string, string> {
  return {
    STORE_URL: `${fleet.redis.url}/${db}`,
    TICKETING_API_URL: apiUrl,
    TICKETING_API_KEY: sim.apiKeys[0] as string,
    SLACK_API_URL: fleet.slack.apiUrl,
    TICKETING_REPORT_LIMIT: '3/1s',
    TICKETING_REPORT_CACHE_TTL: '0',
    WATCH_MIN_INTERVAL: '1s',
  };
}

async function startThree(prefix: string, envOf: (index: number) => Record<string, string>): Promise<Replica[]> {
  const three = await Promise.all([0, 1, 2].map((index) => start(`${prefix}${index}`, envOf(index))));
  await Promise.all(three.map((replica) => replica.waitForLog(catalogReady, 30_000)));
  return three;
}

async function startSim(): Promise<Simulator> {
  // Figures stand still until the test sets them; the report limit is the spec's 3, per second.
  const sim = await startSimulator({ reportLimit: { limit: 3, windowMs: INTERVAL_MS }, motion: 'still' });
  closers.push(() => sim.close());
  return sim;
}

/** `/events <text>` through one replica's HTTP receiver; resolves with its private answer. */
const FETCHING = ":hourglass_flowing_sand: Fetching the event's report";

async function command(replica: Replica, text: string, channel: string): Promise<string> {
  const responseUrl = fleet.slack.responseUrl();
  const sent = await postSigned(
    `${replica.url}/slack/events`,
    SECRET,
    commandBody({ text, response_url: responseUrl, user_id: 'U0WATCHER', channel_id: channel }),
  );
  expect(sent.status).toBe(200);
  const path = new URL(responseUrl).pathname;
  // The answer, after any "fetching the event's report" notice that came first.
  const answer = await fleet.slack.waitFor(() =>
    fleet.slack.responses.find((call) => call.method === path && !String(call.args.text).startsWith(FETCHING)),
  );
  return JSON.stringify(answer.args);
}

/** An upcoming published event with a capacity; the seed has many. */
function watchable(sim: Simulator): SimEvent {
  const event = sim.catalog.events.find(
    (candidate) =>
      candidate.status === 'published' && candidate.startsAtMs > Date.now() + 86_400_000 && candidate.capacity >= 100,
  );
  if (!event) throw new Error('no watchable event in the seed');
  return event;
}

const posts = (channel: string) =>
  fleet.slack.calls.filter((call) => call.method === 'chat.postMessage' && call.args.channel === channel);
const cards = (channel: string) => posts(channel).filter((call) => call.args.thread_ts === undefined);
const replies = (channel: string, cardTs: string) => posts(channel).filter((call) => call.args.thread_ts === cardTs);
const edits = (channel: string, cardTs: string, since = 0) =>
  fleet.slack.calls.filter(
    (call) =>
      call.method === 'chat.update' && call.args.channel === channel && call.args.ts === cardTs && call.at >= since,
  );
/** The ts Slack gave a message `chat.postMessage` created. */
const tsOf = (call: SlackCall) =>
  fleet.slack.postedTs[fleet.slack.calls.filter((c) => c.method === 'chat.postMessage').indexOf(call)] as string;

/** The simulator's answers to report calls for one event (logged when answered), oldest first. */
const reportCalls = (sim: Simulator, event: SimEvent) =>
  sim.stats().log.filter((entry) => entry.path === `/v1/events/${event.id}/report`);

/** The gaps between consecutive report answers for an event. */
function gaps(times: number[]): number[] {
  return times.slice(1).map((at, index) => at - (times[index] as number));
}

interface Tap {
  url: string;
  /** Report calls sent through it at or before `ms` and not answered yet. */
  reportsInFlightSince(ms: number): number;
  /** When each report call was sent through it. */
  sent: number[];
}

/**
 * A pass-through in front of the simulator for one replica, so the test knows whose report call
 * is in flight (the simulator logs a call only once it answers, and does not say from where).
 */
async function tap(target: string): Promise<Tap> {
  const inFlight = new Set<number>();
  const sent: number[] = [];
  const server = createServer((req, res) => {
    if ((req.url ?? '').endsWith('/report')) {
      const at = Date.now();
      sent.push(at);
      inFlight.add(at);
      res.once('close', () => inFlight.delete(at));
    }
    const upstream = request(
      new URL(req.url ?? '/', target),
      { method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    reportsInFlightSince: (ms) => [...inFlight].filter((at) => at <= ms).length,
    sent,
  };
}

/**
 * `/events watch <id>: sold >= 90%` through the second replica, then the same through the other
 * two (already watched: no second card), which also wakes their schedulers at once rather than at
 * their next idle look (15 s). Resolves with the card's ts.
 */
async function watchThroughAll(three: Replica[], event: SimEvent, channel: string): Promise<string> {
  const text = `watch ${event.id}: sold >= 90%`;
  expect(await command(three[1] as Replica, text, channel)).toContain('Added: `sold &gt;= 90%`');
  const cardTs = tsOf(await fleet.slack.waitFor(() => cards(channel)[0]));
  const again = await Promise.all([three[0], three[2]].map((replica) => command(replica as Replica, text, channel)));
  for (const answer of again) expect(answer).toContain('Already watched: `sold &gt;= 90%`');
  expect(cards(channel)).toHaveLength(1);
  return cardTs;
}

/** A replica's watch turns that checked, or found another replica taking the turn or holding the check (its metrics). */
async function turnsContending(replica: Replica): Promise<number> {
  const metrics = await (await fetch(`${replica.url}/metrics`)).text();
  const pattern = /^eventops_watch_turns_total\{outcome="(checked|turn-elsewhere|claimed-elsewhere)"\} (\d+)$/gm;
  return [...metrics.matchAll(pattern)].reduce((sum, match) => sum + Number(match[2]), 0);
}

describe('a watch on three replicas sharing one Redis', () => {
  const channel = 'C0WATCHES';
  let sim: Simulator;
  let event: SimEvent;
  let cardTs: string;

  it('one card, one alert per crossing, one report call per due time, 0 report 429s', async () => {
    sim = await startSim();
    event = watchable(sim);
    sim.setFigures(event.id, { ticketsSold: Math.floor(event.capacity * 0.5) });
    const taps = await Promise.all([0, 1, 2].map(() => tap(sim.url)));
    const three = await startThree('w', (index) => replicaEnv(sim, 1, (taps[index] as Tap).url));

    cardTs = await watchThroughAll(three, event, channel);
    // From here on every report call is a watch's check: setting the watch read reports in the
    // people's turns (each command reads one when the last check is over a window old, as it can be
    // on a loaded machine, and two may go out together), which are no due times.
    const checksFrom = Date.now();
    const card = cards(channel)[0] as SlackCall;
    expect(JSON.stringify(card.args.metadata)).toContain('eventops_watch');
    // Checks go on, each an edit of the card.
    await fleet.slack.waitFor(() => (edits(channel, cardTs).length >= 3 ? true : undefined), 10_000);
    expect(replies(channel, cardTs)).toHaveLength(0);

    const crossedAt = Date.now();
    sim.setFigures(event.id, { ticketsSold: Math.floor(event.capacity * 0.95) });
    const alert = await fleet.slack.waitFor(() => replies(channel, cardTs)[0], 5_000);
    expect(String(alert.args.text)).toMatch(/9[45](\.\d)?% sold/);
    expect(String(alert.args.reply_broadcast)).toBe('true');
    expect(alert.at - crossedAt).toBeLessThan(3 * INTERVAL_MS + 1_000);

    // The figure stays above: several more checks by whichever replica, and no second alert (an
    // absence: wall time, the replicas' schedulers keep theirs in their own processes).
    const edited = edits(channel, cardTs).length;
    const checked = reportCalls(sim, event).length;
    await sleep(5 * INTERVAL_MS);
    expect(reportCalls(sim, event).length).toBeGreaterThanOrEqual(checked + 3);
    expect(edits(channel, cardTs).length).toBeGreaterThan(edited);
    expect(replies(channel, cardTs)).toHaveLength(1);
    expect(cards(channel)).toHaveLength(1);

    // The three race for the due checks: more than one replica goes for them, each either checking
    // or finding another replica at it (the turn taken, or the check claimed). Which one wins is the
    // race's to decide: on a loaded machine one replica has won every check for several seconds
    // (the others' timers firing after its check was done, so their turns found nothing due), so
    // the checks go on until a second has contended. A turn found taken shows a replica looking
    // while another had the turn, not that a check was due at that moment: this shows the three
    // contend, not how evenly.
    let contended: number[] = [];
    await expect
      .poll(
        async () => {
          contended = await Promise.all(three.map(async (replica) => turnsContending(replica)));
          return contended.filter((turns) => turns > 0).length;
        },
        { timeout: 15_000, interval: 250 },
      )
      .toBeGreaterThanOrEqual(2);
    // One report call per due time, over all of it: never two replicas fetching the event for the
    // same check. Two fetches of one due time go out together; the next check goes out a second
    // after the last one's answer reached its replica. When each call was sent (through the taps),
    // not answered: a replica stalled between the answer and its clock reading moves its next check
    // closer to that answer (410 ms once, with another process spinning on one core).
    const calls = reportCalls(sim, event);
    expect(calls.every((call) => call.status === 200)).toBe(true);
    const sent = taps.flatMap((tap) => tap.sent).sort((a, b) => a - b);
    expect(sent.length).toBeGreaterThanOrEqual(calls.length); // and one may be on its way
    const checksSent = sent.filter((at) => at >= checksFrom);
    expect(checksSent.length).toBeGreaterThanOrEqual(5);
    expect(
      Math.min(...gaps(checksSent)),
      JSON.stringify({ contended, sentMsAfterSetUp: sent.map((at) => at - checksFrom) }),
    ).toBeGreaterThanOrEqual(INTERVAL_MS - JITTER_MS);
    expect(replies(channel, cardTs)).toHaveLength(1);
    expect(cards(channel)).toHaveLength(1);
    expect(sim.stats().rateLimited).toBe(0);
  }, 60_000);

  it('after every replica stopped, one started again carries on with the same card', async () => {
    await fleet.stopAll();
    const restartedAt = Date.now();
    const checked = reportCalls(sim, event).length;
    await start('w-again', replicaEnv(sim, 1));
    // Its scheduler checks the event and edits the card it finds in the store.
    await fleet.slack.waitFor(() => (edits(channel, cardTs, restartedAt).length >= 2 ? true : undefined), 10_000);
    expect(reportCalls(sim, event).length).toBeGreaterThanOrEqual(checked + 2);
    expect(cards(channel)).toHaveLength(1);
    // Still above 90%: the crossing was alerted before the restart and is not alerted again.
    expect(replies(channel, cardTs)).toHaveLength(1);
    expect(sim.stats().rateLimited).toBe(0);
    await fleet.stopAll();
  }, 30_000);
});

describe('a replica killed (SIGKILL) in the middle of a watch check', () => {
  const channel = 'C0KILLED';
  let sim: Simulator;
  let event: SimEvent;
  let cardTs: string;
  let killedAt: number | undefined;
  let survivors: { replica: Replica; tap: Tap }[] = [];

  it('dies with the only report call of the check in flight; the card stays one message', async () => {
    sim = await startSim();
    event = watchable(sim);
    sim.setFigures(event.id, { ticketsSold: Math.floor(event.capacity * 0.5) });
    const taps = await Promise.all([0, 1, 2].map(() => tap(sim.url)));
    // A report slot (and, were it used, the watch claim's lease: see below) held by a dead replica lapses in 1 s.
    const three = await startThree('k', (index) => ({
      ...replicaEnv(sim, 2, (taps[index] as Tap).url),
      REPORT_JOB_LOCK: '1s',
    }));
    cardTs = await watchThroughAll(three, event, channel);
    await fleet.slack.waitFor(() => (edits(channel, cardTs).length >= 2 ? true : undefined), 10_000);

    // Reports now take 4 s: the next check is caught with its call in flight.
    sim.knobs.latencyMs = 4_000;
    // A call in flight for half a second is a slow one (a fast one answers in a few ms).
    const slowInFlight = (t: Tap) => t.reportsInFlightSince(Date.now() - 500) > 0;
    const doomed = await waitFor(() => taps.find(slowInFlight), { what: 'a report call in flight', timeoutMs: 10_000 });
    const doomedIndex = taps.indexOf(doomed);
    // The turn lock: one check in flight across the three, the others wait their turn.
    expect(taps.filter((t) => t.reportsInFlightSince(Date.now()) > 0)).toHaveLength(1);
    await (three[doomedIndex] as Replica).kill();
    killedAt = Date.now();
    sim.knobs.latencyMs = 0;
    survivors = three
      .map((replica, index) => ({ replica, tap: taps[index] as Tap }))
      .filter((_, index) => index !== doomedIndex);
    expect(cards(channel)).toHaveLength(1);
    expect(replies(channel, cardTs)).toHaveLength(0);
  }, 40_000);

  // Regression: a dead replica's due claim was taken over only after a fixed 2-minute lease, so
  // the watch went unchecked for ~120 s; the lease is now REPORT_JOB_LOCK and a live check renews it.
  it('another replica carries the watch on within seconds: checks go on, one alert after the kill', async (context) => {
    if (killedAt === undefined) context.skip();
    const since = killedAt as number;
    sim.setFigures(event.id, { ticketsSold: Math.floor(event.capacity * 0.95) });
    // The dead turn's Redis lock lives as long as its claims (REPORT_JOB_LOCK, 1 s here), not the
    // store's 10 s: it lapses a second after the kill, and a survivor checks within the next interval.
    await waitFor(() => survivors.some((s) => s.tap.sent.some((at) => at > since)), {
      what: "a survivor's report call",
      timeoutMs: 6_000,
    });
    const alert = await fleet.slack.waitFor(() => replies(channel, cardTs)[0], 5_000);
    expect(alert.at).toBeGreaterThan(since);
    const checked = reportCalls(sim, event).filter((call) => call.at > since).length;
    // Checks go on and no second alert comes: wall time, as above.
    await sleep(4 * INTERVAL_MS);
    expect(reportCalls(sim, event).filter((call) => call.at > since).length).toBeGreaterThanOrEqual(checked + 2);
    expect(replies(channel, cardTs)).toHaveLength(1);
    expect(cards(channel)).toHaveLength(1);
    expect(edits(channel, cardTs, since).length).toBeGreaterThanOrEqual(2);
    expect(sim.stats().rateLimited).toBe(0);
  }, 40_000);
});
