import type { RespondFn } from '@slack/bolt';
import { searchEvents } from '../../../catalog/event-search.js';
import { resolveEvent, targetText } from '../../../catalog/find-events.js';
import { showFigures, shownOrNone } from '../../../figures/may-show-figures.js';
import { plainMessage, warningMessage } from '../../../render/block-kit.js';
import { USAGE } from '../../../render/command-syntax.js';
import { eventChoicesMessage, eventLabel } from '../../../render/event-blocks.js';
import { usageMessage } from '../../../render/help-blocks.js';
import { clip, code, md } from '../../../render/mrkdwn.js';
import { fetchingReportMessage } from '../../../render/report-blocks.js';
import { watchListMessage } from '../../../render/watch-list-blocks.js';
import { watchAnswer, watchHeldMessage } from '../../../render/watch-outcome-blocks.js';
import { threadOnlyHeldMessage, watchQuietAnswer } from '../../../render/watch-quiet-blocks.js';
import { channelChangeHeldMessage } from '../../../render/withheld-words.js';
import type { TicketingEvent } from '../../../ticketing/schemas.js';
import { setWatch } from '../../../watches/set-watch.js';
import { sharedChannelWatchRefusal, sharingDoubt } from '../../deps/conversation-audience.js';
import { heldFromPerson, privateReader } from '../../deps/figures-reader.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { respondPrivately } from '../../replies/respond-safely.js';
import { setWatchDeps, watchNotSet } from '../../reports/watch-report.js';
import { commandFor, type EventsCommand, type FinishableCommand } from './command-parser.js';
import { nameOrId, noEventAnswer, notOneEventAnswer } from './no-event-answer.js';

type WatchCommand = Extract<EventsCommand, { kind: 'watch' | 'unwatch' | 'watches' | 'watches-thread-only' }>;

export interface WatchCommandContext {
  respond: RespondFn;
  channelId: string;
  userId: string;
  /** The person confirmed a channel watch in a channel shared with another organization. */
  sharedChannelConfirmed?: boolean;
}

/** The conversation a watch lives in: the channel, or with `--me` the person's DM with the bot. */
const conversationOf = (command: { personal: boolean }, context: WatchCommandContext) =>
  command.personal ? context.userId : context.channelId;

/** Each event's button finishes `command` with it: the rest of the command (conditions, `--me`) carried. */
const finishing = (command: FinishableCommand, verb: string) => ({
  verb,
  command: (eventId: string) => commandFor(command, eventId),
});

/** The command to type again with an event's name in place of the words that found none. */
const typedFor = (command: FinishableCommand) => (event: TicketingEvent) =>
  commandFor(command, nameOrId(event, { colonEnds: true }));

/**
 * The one event a target names, or undefined once the person has been told why not (several: a
 * choice whose buttons finish the command with the event picked).
 */
async function oneEvent(
  deps: SlackDeps,
  command: Extract<WatchCommand, { kind: 'watch' }>,
  respond: RespondFn,
): Promise<TicketingEvent | undefined> {
  const resolved = await resolveEvent(deps.catalog, command.target, deps.interactive());
  if (resolved.kind === 'found') return resolved.event;
  const query = targetText(command.target);
  const action = finishing(command, 'Watch');
  const message = notOneEventAnswer(deps, resolved, { query, action, typed: typedFor(command) });
  await respondPrivately(respond, message, deps.logger);
  return undefined;
}

/**
 * The event an unwatch names: of several that match, the one watched there (in the channel, or
 * with `--me` for the person); undefined once the person has been told none is, or asked which
 * of the watched ones.
 */
async function eventToUnwatch(
  deps: SlackDeps,
  watches: NonNullable<SlackDeps['watches']>,
  command: Extract<WatchCommand, { kind: 'unwatch' }>,
  context: WatchCommandContext,
): Promise<TicketingEvent | undefined> {
  const resolved = await resolveEvent(deps.catalog, command.target, deps.interactive());
  if (resolved.kind === 'found') return resolved.event;
  const query = targetText(command.target);
  if (resolved.kind === 'none') {
    const none = noEventAnswer(deps, {
      query,
      asOf: resolved.asOf,
      closest: resolved.closest,
      action: finishing(command, 'Unwatch'),
      typed: typedFor(command),
    });
    await respondPrivately(context.respond, none, deps.logger);
    return undefined;
  }
  const snapshot = await deps.catalog.snapshot(deps.interactive());
  const matching = searchEvents(snapshot.events, query).map((match) => match.event);
  const watchedIds = new Set(
    (await watches.find({ channel: conversationOf(command, context) })).map((watch) => watch.eventId),
  );
  const watched = matching.filter((event) => watchedIds.has(event.id));
  if (watched.length === 1) return watched[0];
  const where = command.personal ? md`for you` : md`here`;
  const words = md`"${clip(query, 60)}"`;
  const message =
    watched.length === 0
      ? warningMessage(
          md`None of the ${matching.length} events matching ${words} is watched ${where}. See ${code(command.personal ? '/events watches --me' : '/events watches')}.`,
        )
      : eventChoicesMessage({
          events: watched,
          query,
          action: finishing(command, 'Unwatch'),
          asOf: snapshot.asOf,
          heading: md`${watched.length} of the ${matching.length} events matching ${words} are watched ${where}: which one should I stop watching?`,
        });
  await respondPrivately(context.respond, message, deps.logger);
  return undefined;
}

/** `/events watch`, `unwatch` and `watches`. */
export async function handleWatchCommand(
  deps: SlackDeps,
  command: WatchCommand,
  context: WatchCommandContext,
): Promise<void> {
  const { respond } = context;
  const watches = deps.watches;
  if (!watches) {
    await respondPrivately(respond, warningMessage(md`Watches are not running in this deployment.`), deps.logger);
    return;
  }
  try {
    switch (command.kind) {
      case 'watch': {
        // The person first, before the event's report is read: a watch's answer names what the
        // report holds (its promo codes, which conditions already crossed).
        const held = await heldFromPerson(deps.audience, context.userId, deps.figuresPolicy);
        if (held) {
          await respondPrivately(respond, watchHeldMessage(held), deps.logger);
          return;
        }
        const event = await oneEvent(deps, command, respond);
        if (!event) return;
        const eventName = eventLabel(event);
        // The answer takes the place of the "fetching" notice, so none is left behind.
        let noticed = false;
        // "Watch in this channel anyway" is a choice made only where Slack says the channel is
        // shared, now, and a choice may lift that: an old button clicked after the channel was
        // unshared, when Slack cannot say, or with a guest of the workspace among its members
        // records no confirmation, and the usual checks apply.
        const confirmed =
          context.sharedChannelConfirmed === true &&
          !command.personal &&
          (await sharingDoubt(deps.audience, context.channelId, undefined, deps.figuresPolicy)) === 'external';
        const outcome = await setWatch(
          setWatchDeps({ ...deps, watches }),
          {
            conversation: conversationOf(command, context),
            personal: command.personal,
            event,
            eventName,
            userId: context.userId,
            conditions: command.conditions ?? '',
            except: command.except,
            sharedConfirmed: confirmed,
          },
          {
            // Told first that they may wait: the report is fetched in their turn.
            fetching: async () => {
              noticed = true;
              await respondPrivately(
                respond,
                fetchingReportMessage(md`to see what it lets you watch`, deps.reportLimit),
                deps.logger,
              );
            },
            // A card with sales and revenue goes into a channel shared with another organization only when asked twice.
            stopBeforeReport: async () => {
              if (command.personal || confirmed) return false;
              const named = { id: event.id, label: eventName };
              const refusal = await sharedChannelWatchRefusal(
                deps.audience,
                context.channelId,
                named,
                command.conditions,
                deps.figuresPolicy,
              );
              if (refusal) await respondPrivately(respond, refusal, deps.logger);
              return refusal !== undefined;
            },
          },
        );
        if (outcome) {
          // Asked again once the report came: they may have been made a guest while it was fetched.
          const reader = await privateReader(deps.audience, context.userId);
          await respondPrivately(
            respond,
            watchAnswer(showFigures(outcome, reader, deps.figuresPolicy), outcome, eventName, (words) =>
              usageMessage(words, USAGE.watch),
            ),
            deps.logger,
            noticed ? { replace_original: true } : {},
          );
        }
        return;
      }
      case 'unwatch': {
        // A channel's watches are ended by those who may set them (as thread-only): asked first.
        const held = command.personal
          ? undefined
          : await heldFromPerson(deps.audience, context.userId, deps.figuresPolicy);
        if (held) {
          await respondPrivately(respond, channelChangeHeldMessage(held, 'watches'), deps.logger);
          return;
        }
        const event = await eventToUnwatch(deps, watches, command, context);
        if (!event) return;
        const ended = await watches.unwatch(conversationOf(command, context), event.id, context.userId);
        const text = ended
          ? md`:no_bell: Stopped watching *${clip(eventLabel(event), 200)}* ${command.personal ? md`for you` : md`here`}.`
          : md`*${clip(eventLabel(event), 200)}* is not watched ${command.personal ? md`for you` : md`here`}. See ${code('/events watches')}.`;
        await respondPrivately(respond, ended ? plainMessage(text) : warningMessage(text), deps.logger);
        return;
      }
      case 'watches': {
        const conversation = conversationOf(command, context);
        const entries = await watches.list({ channel: conversation });
        const now = deps.clock.now();
        const { intervalMs, watchedEvents, rule } = await watches.pace();
        // Answered to the person alone: their figures as the rule allows for them.
        const reader = await privateReader(deps.audience, context.userId);
        const message = watchListMessage({
          entries: entries.map(({ watch, check }) => ({
            watch,
            check: check && shownOrNone(check, reader, deps.figuresPolicy),
            nextCheckAt: check ? check.checkedAt + intervalMs : undefined,
          })),
          intervalMs,
          pace: { watchedEvents, ...rule },
          now,
          where: command.personal ? 'person' : 'channel',
          threadOnly: !command.personal && (await watches.quieting?.threadOnly(conversation)),
        });
        await respondPrivately(respond, message, deps.logger);
        return;
      }
      case 'watches-thread-only': {
        // The channel's own setting: anyone who may watch there may change it (a guest may not).
        if (!watches.quieting) throw new Error('no alert quieting in this deployment');
        const held = await heldFromPerson(deps.audience, context.userId, deps.figuresPolicy);
        if (held) {
          await respondPrivately(respond, threadOnlyHeldMessage(held), deps.logger);
          return;
        }
        await watches.quieting.setThreadOnly(context.channelId, command.on);
        const answer = { kind: 'thread-only', channel: context.channelId, on: command.on } as const;
        await respondPrivately(respond, watchQuietAnswer(answer), deps.logger);
        return;
      }
    }
  } catch (error) {
    deps.logger.warn('A watch command failed', { kind: command.kind, error });
    await respondPrivately(respond, warningMessage(watchNotSet(deps, error)), deps.logger);
  }
}
