import type { RespondFn } from '@slack/bolt';
import { searchEvents } from '../../../catalog/event-search.js';
import { resolveEvent, targetText } from '../../../catalog/find-events.js';
import { isUpcoming } from '../../../catalog/is-upcoming.js';
import { plainMessage, warningMessage } from '../../../render/block-kit.js';
import { USAGE } from '../../../render/command-syntax.js';
import { eventChoicesMessage, eventLabel, noEventMessage } from '../../../render/event-blocks.js';
import { usageMessage } from '../../../render/help-blocks.js';
import { clip, code, md } from '../../../render/mrkdwn.js';
import { fetchingReportMessage } from '../../../render/report-blocks.js';
import { watchConfirmationMessage, watchListMessage, watchRefusedMessage } from '../../../render/watch-blocks.js';
import type { TicketingEvent } from '../../../ticketing/schemas.js';
import { watchedEventInfo } from '../../../watches/event-dates.js';
import { defaultConditions, parseConditions } from '../../../watches/watch-condition.js';
import { crossedBeforeWatch } from '../../../watches/watch-service.js';
import { respondPrivately } from '../../answers/respond-safely.js';
import { sharedChannelWatchRefusal } from '../../deps/conversation-audience.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { countAsFirstCheck, reportToWatch, watchNotSet } from '../../reports/watch-report.js';
import { commandFor, type EventsCommand, type FinishableCommand } from './command-parser.js';

type WatchCommand = Extract<EventsCommand, { kind: 'watch' | 'unwatch' | 'watches' }>;

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
  const message =
    resolved.kind === 'choices'
      ? eventChoicesMessage({ events: resolved.events, query, action, asOf: resolved.asOf })
      : noEventMessage({ target: query, asOf: resolved.asOf, refreshPeriodMs: deps.catalog.periodMs });
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
    const none = noEventMessage({ target: query, asOf: resolved.asOf, refreshPeriodMs: deps.catalog.periodMs });
    await respondPrivately(context.respond, none, deps.logger);
    return undefined;
  }
  const snapshot = await deps.catalog.snapshot(deps.interactive());
  const matching = searchEvents(snapshot.events, query).map((match) => match.event);
  const watchedIds = new Set(
    (await watches.list({ channel: conversationOf(command, context) })).map(({ watch }) => watch.eventId),
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
        const event = await oneEvent(deps, command, respond);
        if (!event) return;
        if (!isUpcoming(event, deps.clock.now())) {
          await respondPrivately(
            respond,
            warningMessage(md`*${clip(eventLabel(event), 200)}* is over: there is nothing left to watch.`),
            deps.logger,
          );
          return;
        }
        // Words first: a condition that does not parse costs no report call. Only whether the
        // report holds what a condition names needs the report.
        const wording = command.conditions ? parseConditions(command.conditions) : undefined;
        if (wording && 'problem' in wording) {
          await respondPrivately(respond, usageMessage(md`${clip(wording.problem, 300)}`, USAGE.watch), deps.logger);
          return;
        }
        // A card with sales and revenue goes into a channel shared with another organization only when asked twice.
        if (!command.personal && !context.sharedChannelConfirmed) {
          const named = { id: event.id, label: eventLabel(event) };
          const refusal = await sharedChannelWatchRefusal(deps.audience, context.channelId, named, command.conditions);
          if (refusal) {
            await respondPrivately(respond, refusal, deps.logger);
            return;
          }
        }
        // A watch the limits would refuse costs no report call.
        const limited = await watches.wouldRefuse({
          channel: conversationOf(command, context),
          userId: context.userId,
          eventId: event.id,
        });
        if (limited) {
          await respondPrivately(
            respond,
            watchRefusedMessage({ ...limited, eventName: eventLabel(event) }),
            deps.logger,
          );
          return;
        }
        // Conditions are checked against the event's latest report: at hand, or fetched for it in
        // the person's turn (it then counts as the watch's first check).
        const read = await reportToWatch(deps, event.id, context.userId, () =>
          respondPrivately(
            respond,
            fetchingReportMessage(md`to see what it lets you watch`, deps.reportLimit),
            deps.logger,
          ),
        );
        const { report } = read;
        // The forecast conditions read the event's stored sales history (no report call).
        const ahead = await deps.insights?.of(event.id, report).catch(() => undefined);
        const parsed = command.conditions
          ? parseConditions(command.conditions, report, ahead?.forecast)
          : { conditions: defaultConditions(report) };
        if ('problem' in parsed) {
          await respondPrivately(respond, usageMessage(md`${clip(parsed.problem, 300)}`, USAGE.watch), deps.logger);
          return;
        }
        if (parsed.conditions.length === 0) {
          const nothing = watchRefusedMessage({ kind: 'nothing-to-watch', eventName: eventLabel(event) });
          await respondPrivately(respond, nothing, deps.logger);
          return;
        }
        const result = await watches.watch({
          channel: conversationOf(command, context),
          personal: command.personal,
          event: watchedEventInfo(event, eventLabel(event)),
          userId: context.userId,
          conditions: parsed.conditions,
          readFrom: report,
          sharedConfirmed: !command.personal && context.sharedChannelConfirmed === true,
        });
        if (!result.refused) await countAsFirstCheck(deps, event.id, read);
        deps.watchScheduler?.poke();
        const message = result.refused
          ? watchRefusedMessage({ ...result.refused, eventName: eventLabel(event) })
          : result.watch.paused
            ? warningMessage(md`I could not post the watch card there, so the watch is paused. I sent you the reason.`)
            : watchConfirmationMessage({
                ...result,
                alreadyCrossed: result.watch.conditions
                  .filter((state) => result.added.includes(state.key) && crossedBeforeWatch(state))
                  .map((state) => state.key),
              });
        await respondPrivately(respond, message, deps.logger);
        return;
      }
      case 'unwatch': {
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
        const message = watchListMessage({
          entries: entries.map(({ watch, check }) => ({
            watch,
            check,
            nextCheckAt: check ? check.checkedAt + intervalMs : undefined,
          })),
          intervalMs,
          pace: { watchedEvents, ...rule },
          now,
          where: command.personal ? 'person' : 'channel',
        });
        await respondPrivately(respond, message, deps.logger);
        return;
      }
    }
  } catch (error) {
    deps.logger.warn('A watch command failed', { kind: command.kind, error });
    await respondPrivately(respond, warningMessage(watchNotSet(deps, error)), deps.logger);
  }
}
