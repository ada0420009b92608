import type { App, webApi } from '@slack/bolt';
import type { EventLinks } from '../../../catalog/event-links.js';
import { type Reader, shownOrNone } from '../../../figures/may-show-figures.js';
import { withinDeadline } from '../../../observability/within-deadline.js';
import type { Block } from '../../../render/block-kit.js';
import { eventEntity } from '../../../render/event-entity.js';
import { eventUnfurlBlocks } from '../../../render/unfurl-blocks.js';
import { isConversationId, roomOf } from '../../deps/conversation-audience.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { countSlackError, slackErrorCode } from '../../replies/slack-errors.js';
import { reportAtHand } from '../../reports/ask-for-report.js';

/** How long an unfurl waits for a crawl when none is in memory (a cold start). */
const CATALOG_WAIT_MS = 2_000;
/** Most links one message unfolds (Slack shows a handful; each is a card). */
const MAX_UNFURLS = 5;

interface LinkSharedEvent {
  /** Who shared the link. */
  user?: string;
  channel?: string;
  message_ts?: string;
  unfurl_id?: string;
  source?: string;
  /** False when the bot is not in the conversation: no figures there. */
  is_bot_user_member?: boolean;
  links?: { url?: string; domain?: string }[];
}

/**
 * How long a team whose Work Object Slack did not show gets classic cards straight away (one call
 * per link instead of two): previews switched off stay off a while; after that one is tried again.
 */
const WORK_OBJECTS_RETRY_MS = 60 * 60_000;

/**
 * How old a report an unfurl shows may be: it says when the figures were read, so a watch's check
 * of a few hours ago is still worth showing. An unfurl never spends a report call.
 */
const UNFURL_REPORT_MAX_AGE_MS = 24 * 3_600_000;

/**
 * Event page links unfold into event cards (`link_shared` → one `chat.unfurl` for all the links of
 * a message). Links to unknown events and other pages of the host are left alone, silently. As
 * Work Objects (UNFURL_STYLE=work-object) the cards carry no figures at all: each person reads them
 * in the card's flexpane (`entity-details.ts`). Classic cards (or where Slack refuses a Work Object)
 * show report figures only where UNFURL_FIGURES allows: by default in conversations of the
 * organization alone that the bot is in (never in the composer, whose conversation is not known yet).
 */
export function registerLinkUnfurls(app: App, deps: SlackDeps, links: EventLinks): void {
  /** Teams whose Work Object Slack did not show, until when they get the classic card alone (this process's memory). */
  const classicUntil = new Map<string, number>();
  app.event('link_shared', async ({ event, client, context }) => {
    const shared = event as unknown as LinkSharedEvent;
    const log = deps.logger.child({ event: 'link_shared' });
    const wanted = (shared.links ?? [])
      .map((link) => ({ url: typeof link.url === 'string' ? link.url : '', eventId: undefined as string | undefined }))
      .map((link) => ({ ...link, eventId: links.eventIdIn(link.url) }))
      .filter((link): link is { url: string; eventId: string } => link.eventId !== undefined)
      .slice(0, MAX_UNFURLS);
    if (wanted.length === 0) return;
    const snapshot = await withinDeadline(
      deps.catalog.current() ? Promise.resolve(deps.catalog.current()) : deps.catalog.snapshot(),
      CATALOG_WAIT_MS,
      'the catalog',
    ).catch((error: unknown) => {
      log.info('No catalog to unfurl from', { error });
      return undefined;
    });
    if (!snapshot) return;
    const found = wanted.flatMap((link) => {
      const event = snapshot.byId.get(link.eventId);
      return event ? [{ url: link.url, event }] : [];
    });
    if (found.length === 0) return;
    const where = unfurlTarget(shared);
    if (!where) return;
    const team = context.teamId ?? context.enterpriseId ?? '';
    const notShown = () => classicUntil.set(team, deps.clock.now() + WORK_OBJECTS_RETRY_MS);
    if (deps.unfurlStyle === 'work-object' && (classicUntil.get(team) ?? 0) <= deps.clock.now()) {
      const entities = found.map(({ url, event }) => eventEntity({ event, postedUrl: url, now: deps.clock.now() }));
      try {
        const answer = await client.chat.unfurl({ ...where, metadata: { entities } });
        // Slack may take a Work Object it will not show (previews off, an entity it does not
        // accept) with `ok` and a warning: nothing unfolds unless the classic card follows.
        const warning = unfurlWarning(answer);
        if (!warning) return;
        notShown();
        log.warn('Slack took the Work Object unfurl with a warning; sending the classic card', {
          method: 'chat.unfurl',
          warning,
        });
      } catch (error) {
        // A workspace or app without Work Object previews: the classic card, as UNFURL_STYLE=classic.
        countSlackError(deps.metrics, 'chat.unfurl', error);
        if (slackErrorCode(error) !== 'ratelimited') notShown();
        log.info('Slack refused the Work Object unfurl; sending the classic card', { error });
      }
    }
    const reader = await unfurlReader(deps, shared, client);
    const unfurls: Record<string, { blocks: Block[] }> = {};
    for (const { url, event } of found) {
      const atHand = reader ? await reportAtHand(deps, event.id, { maxAgeMs: UNFURL_REPORT_MAX_AGE_MS }) : undefined;
      const report = atHand && reader ? shownOrNone(atHand, reader, deps.figuresPolicy) : undefined;
      unfurls[url] = { blocks: eventUnfurlBlocks({ event, asOf: snapshot.asOf, report }) };
    }
    try {
      await client.chat.unfurl({ ...where, unfurls });
    } catch (error) {
      countSlackError(deps.metrics, 'chat.unfurl', error);
      log.warn('Could not unfurl event links', { error });
    }
  });
}

/** Where the cards go: a posted message by its channel and ts, a link still in the composer by its unfurl id. */
function unfurlTarget(
  shared: LinkSharedEvent,
): { channel: string; ts: string } | { unfurl_id: string; source: 'composer' | 'conversations_history' } | undefined {
  if (shared.channel && shared.message_ts) return { channel: shared.channel, ts: shared.message_ts };
  if (!shared.unfurl_id) return undefined;
  return { unfurl_id: shared.unfurl_id, source: shared.source === 'composer' ? 'composer' : 'conversations_history' };
}

/**
 * Warnings about how a request was encoded, not about what it carried. Slack documents no warning
 * that means "this Work Object will not be shown", so any other warning is taken to mean it (the
 * cost of being wrong: a classic card beside the Work Object, for a while).
 */
const TRANSPORT_WARNINGS = new Set(['missing_charset', 'superfluous_charset']);

/** What Slack warned of about the unfurl when it answered `ok` (its `warning`, and the messages that explain it), if anything. */
function unfurlWarning(answer: webApi.ChatUnfurlResponse): string | undefined {
  const notes = [
    answer.warning,
    ...(answer.response_metadata?.warnings ?? []),
    ...(answer.response_metadata?.messages ?? []),
  ].filter((note): note is string => typeof note === 'string' && note !== '' && !TRANSPORT_WARNINGS.has(note));
  return notes.length > 0 ? [...new Set(notes)].join('; ').slice(0, 300) : undefined;
}

/**
 * Who reads an unfurl's card: the conversation the link was shared in (once posted: a link still
 * in the composer has none yet, so no figures) and the person who shared it. Undefined: no
 * figures at all (UNFURL_FIGURES=off, or the bot is not in the conversation). `everywhere` is the
 * operator's choice to share them in Slack Connect conversations too: it lifts only that.
 */
async function unfurlReader(
  deps: SlackDeps,
  shared: LinkSharedEvent,
  client: webApi.WebClient,
): Promise<Reader | undefined> {
  const { channel } = shared;
  if (deps.unfurlFigures === 'off' || shared.is_bot_user_member === false) return undefined;
  if (!isConversationId(channel) || !shared.message_ts || !shared.user) return undefined;
  const audience = await deps.audience.of(channel, client, { members: deps.unfurlFigures === 'everywhere' });
  if (audience.kind === 'internal' && !audience.botIsMember) return undefined;
  return {
    room: roomOf(audience),
    person: await deps.audience.person(shared.user, client),
    chosenAnyway: deps.unfurlFigures === 'everywhere',
  };
}
