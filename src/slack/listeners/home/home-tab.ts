import type { webApi } from '@slack/bolt';
import type { CatalogSnapshot } from '../../../catalog/event-catalog.js';
import { isListedUpcoming } from '../../../catalog/is-upcoming.js';
import { showFigures } from '../../../figures/may-show-figures.js';
import type { Comparables } from '../../../forecast/comparables.js';
import { type TrackRecord, trackRecordOf } from '../../../forecast/track-record.js';
import { withinDeadline } from '../../../observability/within-deadline.js';
import type { PersonalDigestHomeInput } from '../../../render/digest-blocks.js';
import { type HomeViewInput, homeView } from '../../../render/home-view.js';
import { type Mrkdwn, md } from '../../../render/mrkdwn.js';
import type { RecentActivity } from '../../../store/activity-store.js';
import type { BudgetSnapshot } from '../../../ticketing/budget.js';
import { privateReader } from '../../deps/figures-reader.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { countSlackError } from '../../replies/slack-errors.js';
import { userMessageFor } from '../../replies/user-message.js';

/** How long the first view waits for a crawl when none is in memory (a cold start): usually enough. */
const CATALOG_WAIT_MS = 500;
/** How long a view waits for the store (activity, budget) before showing without it. */
const STORE_WAIT_MS = 300;

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
 * needed has finished. `digestNotice`: why the last digest button did not work, shown under it.
 */
export async function publishHome(
  deps: SlackDeps,
  client: webApi.WebClient,
  userId: string,
  options: { digestNotice?: Mrkdwn } = {},
): Promise<void> {
  const log = deps.logger.child({ event: 'app_home_opened', user: userId });
  const bounded = <T>(read: () => Promise<T>, fallback: T, what: string) =>
    withinDeadline(read(), STORE_WAIT_MS, what).catch((error: unknown) => {
      log.warn(`Could not read ${what}`, { error });
      return fallback;
    });
  const activity = bounded(() => deps.activity.recent(userId), NO_ACTIVITY, 'recent activity');
  const watches = bounded(async () => (await deps.watches?.find({ setBy: userId })) ?? [], [], 'the watches');
  // The person's own digest is keyed by their user id; unread, its section is left out.
  const personalDigest = bounded<PersonalDigestHomeInput | undefined>(
    async () => {
      const found = await deps.digests.status(userId);
      return {
        digest: found ? { ...found.subscription, nextAt: found.next.at } : undefined,
        notice: options.digestNotice,
      };
    },
    undefined,
    'the personal digest',
  );
  // The forecast's track record, from the finished events' stored histories (no report call).
  const forecastAccuracy = bounded<TrackRecord | undefined>(
    async () => {
      const insights = deps.insights;
      return insights ? trackRecordOf(await insights.finished(deps.clock.now())) : undefined;
    },
    undefined,
    'the forecast track record',
  );
  const mcpToken = deps.mcpTokens
    ? bounded(async () => ({ listing: await deps.mcpTokens?.of(userId) }), undefined, 'the MCP token')
    : Promise.resolve(undefined);
  // Quantities and forecasts as the figures rule allows this person (a guest or a stranger sees none).
  const reader = privateReader(deps.audience, userId);
  // Where each upcoming event shown stands against similar finished events (stored history only).
  const standingOf = (events: HomeViewInput['events']) =>
    bounded<Map<string, Comparables>>(
      async () => {
        const standing = new Map<string, Comparables>();
        const insights = deps.insights;
        if (!insights || 'error' in events) return standing;
        for (const event of events.slice(0, 5)) {
          const insight = await insights.of(event.id);
          if (insight) standing.set(event.id, insight.comparables);
        }
        return standing;
      },
      new Map(),
      'the events against similar ones',
    );
  const publish = async (events: HomeViewInput['events']) => {
    const budget = await bounded(() => deps.ticketing.budget(), NO_BUDGET, 'the budget');
    const gate = showFigures(
      { forecastAccuracy: await forecastAccuracy, standing: await standingOf(events) },
      await reader,
      deps.figuresPolicy,
    );
    const view = homeView({
      events,
      activity: await activity,
      budget,
      now: deps.clock.now(),
      watches: await watches,
      personalDigest: await personalDigest,
      ...('shown' in gate ? { figures: gate.shown } : { withheld: gate.withheld }),
      promoStepRestriction: deps.promoStepPermissions?.problemFor(userId),
      mcpToken: await mcpToken,
    });
    try {
      await client.views.publish({ user_id: userId, view });
    } catch (error) {
      countSlackError(deps.metrics, 'views.publish', error);
      log.warn('Could not publish the home tab', { error });
    }
  };
  const upcoming = (snapshot: CatalogSnapshot) => {
    const now = deps.clock.now();
    return snapshot.events.filter((each) => isListedUpcoming(each, now)).slice(0, 5);
  };

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
}
