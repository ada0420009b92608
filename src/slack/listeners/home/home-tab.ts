import type { webApi } from '@slack/bolt';
import type { CatalogSnapshot } from '../../../catalog/event-catalog.js';
import { isListedUpcoming } from '../../../catalog/is-upcoming.js';
import { showFigures } from '../../../figures/may-show-figures.js';
import type { Comparables } from '../../../forecast/comparables.js';
import { type TrackRecord, trackRecordOf } from '../../../forecast/track-record.js';
import { DeadlineError, withinDeadline } from '../../../observability/within-deadline.js';
import type { PersonalDigestHomeInput } from '../../../render/digest-blocks.js';
import { type HomeViewInput, homeView } from '../../../render/home-view.js';
import { type Mrkdwn, md } from '../../../render/mrkdwn.js';
import type { RecentActivity } from '../../../store/activity-store.js';
import type { BudgetSnapshot } from '../../../ticketing/budget.js';
import { privateReader } from '../../deps/figures-reader.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { countSlackError, slackErrorCode } from '../../replies/slack-errors.js';
import { userMessageFor } from '../../replies/user-message.js';

/** How long the first view waits for a crawl when none is in memory (a cold start): usually enough. */
const CATALOG_WAIT_MS = 500;
/** How long a view waits for the store (activity, budget) before showing without it. */
const STORE_WAIT_MS = 300;
/** How long a read a view left out may take before the home tab stops waiting to show it. */
const LATE_WAIT_MS = 10_000;

const NO_ACTIVITY: RecentActivity = { reports: [], promoChanges: [] };
const NO_BUDGET: BudgetSnapshot = {
  limit: 0,
  remaining: 0,
  resetAt: undefined,
  pausedUntil: undefined,
  inFlight: 0,
  queued: { interactive: 0, background: 0 },
  reserve: 0,
  lastObservation: undefined,
  rateLimitedResponses: 0,
};

/**
 * Publishes a person's home tab within a second from what is at hand, then again once a crawl it
 * needed has finished, and once more when a read it left out for being slow has answered.
 * `digestNotice`: why the last digest button did not work, shown under it.
 */
export async function publishHome(
  deps: SlackDeps,
  client: webApi.WebClient,
  userId: string,
  options: { digestNotice?: Mrkdwn } = {},
): Promise<void> {
  const log = deps.logger.child({ event: 'app_home_opened', user: userId });
  // Each read starts once. A view shows what answered within STORE_WAIT_MS and leaves the rest out;
  // a read left out only for being slow is shown by one more view once it answers (`lateReads`:
  // whether it answered). The budget is read again for each view, and never waited for.
  const lateReads = new Set<Promise<boolean>>();
  const bounded = async <T>(reading: Promise<T>, fallback: T, what: string, late = true): Promise<T> => {
    try {
      return await withinDeadline(reading, STORE_WAIT_MS, what);
    } catch (error) {
      if (!(error instanceof DeadlineError)) log.warn(`Could not read ${what}`, { error });
      else if (late) {
        log.debug(`Showing the home tab without ${what} until it answers`);
        lateReads.add(
          reading.then(
            () => true,
            () => false,
          ),
        );
      }
      return fallback;
    }
  };
  const started = <T>(read: () => Promise<T>): Promise<T> => {
    const reading = Promise.resolve().then(read);
    reading.catch(() => undefined);
    return reading;
  };
  const activity = started(() => deps.activity.recent(userId));
  const watches = started(async () => (await deps.watches?.find({ setBy: userId })) ?? []);
  // The person's own digest is keyed by their user id; unread, its section is left out.
  const personalDigest = started<PersonalDigestHomeInput | undefined>(async () => {
    const found = await deps.digests.status(userId);
    return {
      digest: found ? { ...found.subscription, nextAt: found.next.at } : undefined,
      notice: options.digestNotice,
    };
  });
  // The forecast's track record, from the finished events' stored histories (no report call).
  const forecastAccuracy = started<TrackRecord | undefined>(async () => {
    const insights = deps.insights;
    return insights ? trackRecordOf(await insights.finished(deps.clock.now())) : undefined;
  });
  const mcpToken = started(async () => (deps.mcpTokens ? { listing: await deps.mcpTokens.of(userId) } : undefined));
  // Quantities and forecasts as the figures rule allows this person (a guest or a stranger sees none).
  const reader = privateReader(deps.audience, userId);
  // Where each upcoming event shown stands against similar finished events (stored history only),
  // read once for each list of events shown.
  const standings = new WeakMap<object, Promise<Map<string, Comparables>>>();
  const standingOf = (events: HomeViewInput['events']) => {
    let reading = standings.get(events);
    if (!reading) {
      reading = started(async () => {
        const standing = new Map<string, Comparables>();
        const insights = deps.insights;
        if (!insights || 'error' in events) return standing;
        for (const event of events.slice(0, 5)) {
          const insight = await insights.of(event.id);
          if (insight) standing.set(event.id, insight.comparables);
        }
        return standing;
      });
      standings.set(events, reading);
    }
    return reading;
  };
  let shown: HomeViewInput['events'] | undefined;
  let lastHash: string | undefined;
  let superseded = false;
  const publish = async (events: HomeViewInput['events']) => {
    if (superseded) return;
    shown = events;
    lateReads.clear();
    // All at once: a view waits STORE_WAIT_MS at most, not once for each read.
    const [budget, standing, accuracy, recent, own, digest, token] = await Promise.all([
      bounded(
        started(() => deps.ticketing.budget()),
        NO_BUDGET,
        'the budget',
        false,
      ),
      bounded(standingOf(events), new Map<string, Comparables>(), 'the events against similar ones'),
      bounded(forecastAccuracy, undefined, 'the forecast track record'),
      bounded(activity, NO_ACTIVITY, 'recent activity'),
      bounded(watches, [], 'the watches'),
      bounded(personalDigest, undefined, 'the personal digest'),
      bounded(mcpToken, undefined, 'the MCP token'),
    ]);
    const gate = showFigures({ forecastAccuracy: accuracy, standing }, await reader, deps.figuresPolicy);
    const view = homeView({
      events,
      activity: recent,
      budget,
      now: deps.clock.now(),
      watches: own,
      personalDigest: digest,
      ...('shown' in gate ? { figures: gate.shown } : { withheld: gate.withheld }),
      promoStepRestriction: deps.promoStepPermissions?.problemFor(userId),
      mcpToken: token,
    });
    // After this run's first view, each names the one it replaces: Slack refuses it (hash_conflict)
    // once another view was published meanwhile (another open, a digest button, another replica),
    // and this run, which read before that one, stops there rather than show older reads over it.
    try {
      const published = await client.views.publish({
        user_id: userId,
        view,
        ...(lastHash ? { hash: lastHash } : {}),
      });
      lastHash = published.view?.hash;
    } catch (error) {
      if (slackErrorCode(error) === 'hash_conflict') {
        superseded = true;
        return;
      }
      countSlackError(deps.metrics, 'views.publish', error);
      log.warn('Could not publish the home tab', { error });
    }
  };
  const upcoming = (snapshot: CatalogSnapshot) => {
    const now = deps.clock.now();
    return snapshot.events.filter((each) => isListedUpcoming(each, now)).slice(0, 5);
  };

  /** The first view, then one more if a crawl it needed finishes. */
  const views = async (): Promise<void> => {
    // The first view within a second: what is in memory, or a crawl that finishes in time.
    let known = deps.catalog.current();
    if (!known) {
      const signal = AbortSignal.timeout(CATALOG_WAIT_MS);
      let failure: unknown;
      known = await deps.catalog.snapshot({ signal }).catch((error: unknown) => {
        if (!signal.aborted) failure = error;
        return undefined;
      });
      if (failure !== undefined) {
        await publish({ error: userMessageFor(failure) });
        return;
      }
    }
    await publish(known ? upcoming(known) : { error: md`The events are still loading: they appear here in a moment.` });
    let latest: CatalogSnapshot;
    try {
      latest = await deps.catalog.snapshot(deps.interactive());
    } catch (error) {
      if (!known) await publish({ error: userMessageFor(error) });
      return;
    }
    // The same snapshot: nothing was due, or the refresh failed and the shown one stands.
    if (latest !== known) await publish(upcoming(latest));
  };
  await views();
  // A read the last view left out for being slow: one more view once it answers (not while
  // shutting down, and not when each of them failed: the view would be the same).
  if (lateReads.size === 0 || shown === undefined || superseded || deps.work.stopping.aborted) return;
  const late = [...lateReads];
  let answered: boolean[];
  try {
    answered = await withinDeadline(Promise.all(late), LATE_WAIT_MS, 'the reads left out of the home tab');
  } catch (error) {
    log.warn('Could not read all of the home tab', { error });
    return;
  }
  if (answered.some(Boolean) && !deps.work.stopping.aborted) await publish(shown);
}
