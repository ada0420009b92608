import type { App, webApi } from '@slack/bolt';
import type { EventLinks } from '../../../catalog/event-links.js';
import { figuresWithheld, shownOrNone } from '../../../figures/may-show-figures.js';
import { withinDeadline } from '../../../observability/within-deadline.js';
import { EVENT_REF_TYPE, eventDetailsEntity, type FlexpaneFigures } from '../../../render/event-entity.js';
import { parseId } from '../../../ticketing/ids.js';
import type { TicketingEvent } from '../../../ticketing/schemas.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { countSlackError } from '../../replies/slack-errors.js';
import { reportAtHand, reportFor } from '../../reports/ask-for-report.js';

/**
 * What Slack sends when a person opens a Work Object's flexpane or presses its refresh button
 * (`entity_details_requested`, docs.slack.dev): the link as posted is `app_unfurl_url`; `link.url`
 * and `entity_url` are the entity's own URL.
 */
interface EntityDetailsRequested {
  user?: string;
  trigger_id?: string;
  app_unfurl_url?: string;
  entity_url?: string;
  link?: { url?: string };
  external_ref?: { id?: string; type?: string };
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * Slack's trigger lasts 3 s: what the flexpane gathers (the person, the editors, the report at
 * hand, the forecast) gets 2 s, and the answer goes with whatever came by then.
 */
const DETAILS_DEADLINE_MS = 2_000;
/** A report at hand this fresh is shown as it is; an older one is shown with its age and a fresh one asked for. */
const FRESH_ENOUGH_MS = 15 * 60_000;
/** The oldest report a flexpane shows at all (with its age, as an unfurl's "as of"). */
const OLDEST_SHOWN_MS = 24 * 3_600_000;

/**
 * A person opened an event's Work Object: `entity.presentDetails` fills its flexpane for them alone
 * (a private surface): the card's fields, and the figures when the figures rule lets this person
 * read them, from the report at hand (no report call while answering). With none fresh enough, a
 * report is queued in the person's turn, after the answer: the flexpane says so and shows the
 * figures when its refresh button is pressed (Slack keeps an opened flexpane for some minutes and
 * asks again only on that button). Guests and people of another organization get the card's
 * fields and why there are no figures.
 */
export function registerEntityDetails(app: App, deps: SlackDeps, links: EventLinks): void {
  // One queued report per person and event at a time: opening the card again does not queue more.
  // What it fetches goes into the event's record, which the next opening reads, from any channel.
  const queued = new Set<string>();
  const queue = (eventId: string, userId: string): boolean => {
    const key = `${userId}:${eventId}`;
    if (queued.has(key)) return true;
    if (deps.work.stopping.aborted) return false;
    queued.add(key);
    void deps.work
      .track(reportFor(deps, eventId, userId))
      .catch((error: unknown) => deps.logger.info('A flexpane report could not be fetched', { eventId, error }))
      .finally(() => queued.delete(key));
    return true;
  };

  app.event('entity_details_requested', async ({ event, client }) => {
    const asked = event as unknown as EntityDetailsRequested;
    const log = deps.logger.child({ event: 'entity_details_requested' });
    const { user: userId, trigger_id: triggerId } = asked;
    if (!userId || !triggerId) return;
    const posted = text(asked.app_unfurl_url);
    const url = posted || text(asked.link?.url) || text(asked.entity_url);
    const eventId = eventIdOf(asked.external_ref) ?? links.eventIdIn(url);
    const found = eventId ? deps.catalog.current()?.byId.get(eventId) : undefined;
    const present = (args: Omit<webApi.EntityPresentDetailsArguments, 'trigger_id'>) =>
      client.entity.presentDetails({ trigger_id: triggerId, ...args }).catch((error: unknown) => {
        countSlackError(deps.metrics, 'entity.presentDetails', error);
        log.warn('Could not present an event flexpane', { error });
      });
    if (!found) {
      await present({
        error: {
          status: 'custom',
          custom_title: 'Event not found',
          custom_message:
            'This event is not in the organization’s event list: it may have been removed, or the list is still loading after a restart. Press this panel’s refresh button in a minute, or use /events find.',
        },
      });
      return;
    }
    const figures = await withinDeadline(
      flexpaneFigures(deps, client, found, userId, queue),
      DETAILS_DEADLINE_MS,
      'the flexpane',
    ).catch((error: unknown) => {
      log.info('The flexpane answers without figures: gathering them took too long or failed', { error });
      return undefined;
    });
    const editor = figures?.editor ?? false;
    await present({
      metadata: eventDetailsEntity({
        event: found,
        postedUrl: url || found.url || '',
        now: deps.clock.now(),
        // Who the person is was not known in time: no figures and no buttons (nor a report asked
        // for) for someone who may not read them; the panel says why.
        figures: figures?.figures ?? {
          kind: 'withheld',
          withheld: { why: 'not-known', about: 'person', reason: 'Slack did not answer in time' },
        },
        editor,
      }),
    });
  });
}

/** What the person may read of the event's figures now, with no report call, and whether they edit promo codes. */
async function flexpaneFigures(
  deps: SlackDeps,
  client: webApi.WebClient,
  event: TicketingEvent,
  userId: string,
  queue: (eventId: string, userId: string) => boolean,
): Promise<{ figures: FlexpaneFigures; editor: boolean }> {
  const reader = { room: { kind: 'private' } as const, person: await deps.audience.person(userId, client) };
  const withheld = figuresWithheld(reader, deps.figuresPolicy);
  if (withheld) return { figures: { kind: 'withheld', withheld }, editor: false };
  const [atHand, editor] = await Promise.all([
    reportAtHand(deps, event.id, { maxAgeMs: OLDEST_SHOWN_MS }),
    deps.editors.allows(userId, client).catch(() => false),
  ]);
  if (!atHand) return { figures: { kind: 'none', queued: queue(event.id, userId) }, editor };
  const insight = await deps.insights?.of(event.id, atHand.report).catch(() => undefined);
  const shown = shownOrNone(
    { ...atHand, forecast: insight?.forecast, comparables: insight?.comparables },
    reader,
    deps.figuresPolicy,
  );
  if (!shown) return { figures: { kind: 'none', queued: false }, editor };
  const stale = deps.clock.now() - atHand.readAt > FRESH_ENOUGH_MS;
  return { figures: { kind: 'shown', figures: shown, refreshing: stale && queue(event.id, userId) }, editor };
}

/** The event a Work Object names by its `external_ref` (ours: type `event`, the event's id), if any. */
function eventIdOf(ref: EntityDetailsRequested['external_ref']): string | undefined {
  if (ref?.type !== EVENT_REF_TYPE || typeof ref.id !== 'string') return undefined;
  try {
    return parseId('event', ref.id.slice(0, 100));
  } catch {
    return undefined;
  }
}
