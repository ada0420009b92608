import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { EventCatalog } from '../catalog/event-catalog.js';
import { DAY_RANGES, type EventTarget, resolveEvent, upcomingEvents } from '../catalog/find-events.js';
import { type FiguresPolicy, type Person, showFigures } from '../figures/may-show-figures.js';
import type { SalesInsights } from '../forecast/sales-insights.js';
import { trackRecordOf } from '../forecast/track-record.js';
import type { Logger } from '../logger.js';
import type { KnownPromoCodes } from '../promo/known-promo-codes.js';
import type { PendingPromoChanges } from '../promo/pending-promo-changes.js';
import type { ProposeResult } from '../promo/promo-changes.js';
import { parsePromoRef } from '../promo/promo-codes.js';
import { promoCodeSources, requestPromoChange } from '../promo/request-promo-change.js';
import { reportForPerson } from '../reports/report-for-person.js';
import type { Reports } from '../reports/reports.js';
import type { ActivityStore } from '../store/activity-store.js';
import type { KeyValueStore } from '../store/key-value-store.js';
import type { CallOptions, TicketingClient } from '../ticketing/client.js';
import { isTicketingError, RateLimitedError, TooManyReportsWaitingError } from '../ticketing/errors.js';
import { tryParseId } from '../ticketing/ids.js';
import type { RateLimitSpec } from '../ticketing/rate-limit.js';
import type { TicketingEvent } from '../ticketing/schemas.js';
import type { Clock } from '../time/clock.js';
import { takeToolCall } from './call-limit.js';
import {
  eventFacts,
  eventLines,
  forecastText,
  plain,
  reportText,
  trackRecordText,
  withheldWords,
} from './tool-texts.js';

/** What the MCP tools need of Slack: who a person is, and the person's own promo confirmation. */
export interface McpSlack {
  /** Who a Slack user is (member, guest, of another organization): the figures rule's fact. */
  personOf(userId: string): Promise<Person>;
  /** The person's Slack timezone, when Slack says (the list's days). */
  zoneOf(userId: string): Promise<string | undefined>;
  /** Whether the person may change promo codes now. */
  isEditor(userId: string): Promise<boolean>;
  /** Promo changes waiting for their requester's one confirmation. */
  pending: PendingPromoChanges;
  /** Sends the person, in a DM, the single-use confirmation `/events promo` gives for this change. */
  sendPromoConfirmation(userId: string, result: Extract<ProposeResult, { kind: 'confirm' }>): Promise<void>;
}

/** What the MCP tools are given: the same use cases, queue and rules as the Slack listeners. */
export interface McpDeps {
  catalog: EventCatalog;
  reports: Pick<Reports<unknown>, 'fetchFor' | 'atHand'>;
  promoCodes: KnownPromoCodes;
  insights?: SalesInsights | undefined;
  /** A person's watches (absent: none kept here). */
  watches?: { list(filter: { setBy: string }): Promise<{ watch: WatchLike }[]> } | undefined;
  ticketing: Pick<TicketingClient, 'updatePromoQuantity'>;
  activity: ActivityStore;
  /** Where each person's tool calls are counted, by every replica. */
  store: Pick<KeyValueStore, 'update'>;
  /** The Slack side, once the app is built. */
  slack(): McpSlack;
  figuresPolicy: FiguresPolicy;
  callsPerPerson: RateLimitSpec;
  /** Options for a call the agent waits for (deadline, priority). */
  interactive(): CallOptions;
  clock: Clock;
  logger: Logger;
}

interface WatchLike {
  channel: string;
  personal: boolean;
  eventId: string;
  eventName: string;
  conditions: readonly { key: string }[];
}

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, openWorldHint: false } as const;
const EVENT = z.string().trim().min(1).max(200).describe('The event: its id (evt_...) or words of its name');

type Answer = CallToolResult & { eventId?: string | undefined };

const answer = (text: string, structured?: Record<string, unknown>, eventId?: string): Answer => ({
  content: [{ type: 'text', text }],
  ...(structured ? { structuredContent: structured } : {}),
  eventId,
});

const toolError = (text: string, eventId?: string): Answer => ({
  content: [{ type: 'text', text }],
  isError: true,
  eventId,
});

/** A failure in words an agent can pass on (never a stack, never outside markup). */
function errorWords(error: unknown): string {
  if (error instanceof RateLimitedError)
    return `The ticketing service's limit is reached; try again in ${Math.ceil(error.retryAfterMs / 1000)} s.`;
  if (error instanceof TooManyReportsWaitingError)
    return `You already have ${error.limit} reports waiting (${error.waiting.map((each) => plain(each.label ?? each.eventId, 80)).join(', ')}); wait for one to arrive. Nothing was queued.`;
  if (isTicketingError(error)) return plain(error.message, 300);
  return 'Something went wrong; nothing was changed. Try again.';
}

const targetOf = (text: string): EventTarget => {
  const id = /^(evt_)?[0-9a-f-]{36}$/i.test(text) ? tryParseId('event', text) : undefined;
  return id ? { id } : { words: text };
};

/** The one event `text` names, or an error answer (none, with "did you mean"; several, to choose from). */
async function oneEvent(deps: McpDeps, text: string): Promise<TicketingEvent | Answer> {
  const resolved = await resolveEvent(deps.catalog, targetOf(text), deps.interactive());
  if (resolved.kind === 'found') return resolved.event;
  if (resolved.kind === 'choices')
    return toolError(`Several events match "${plain(text)}"; name one by its id:\n${eventLines(resolved.events)}`);
  const closest = resolved.closest ?? [];
  return toolError(
    closest.length > 0
      ? `No event matches "${plain(text)}". Did you mean:\n${eventLines(closest)}`
      : `No event matches "${plain(text)}".`,
  );
}

const isAnswer = (value: TicketingEvent | Answer): value is Answer => 'content' in value;

/**
 * The tools of one person's MCP session (`userId`: the token's person). Every call is counted
 * against the person's limit, audited with the person and the tool, and answered in words when it
 * fails; figures go through the figures rule about that person, as to a DM.
 */
export function registerTools(server: McpServer, deps: McpDeps, userId: string): void {
  const log = deps.logger.child({ mcp: true, user: userId });
  const run =
    <A>(tool: string, work: (args: A, progress: (message: string) => Promise<void>) => Promise<Answer>) =>
    async (args: A, extra: RequestHandlerExtra<ServerRequest, ServerNotification>): Promise<CallToolResult> => {
      const record = (outcome: 'ok' | 'error' | 'limited', eventId?: string) =>
        deps.activity
          .recordToolCall({ at: new Date(deps.clock.now()).toISOString(), userId, tool, outcome, eventId })
          .catch((error: unknown) => log.error('Could not audit an MCP tool call', { error, tool }));
      if (!(await takeToolCall(deps.store, userId, deps.callsPerPerson, deps.clock.now()))) {
        await record('limited');
        return toolError(
          `Too many tool calls: at most ${deps.callsPerPerson.limit} every ${deps.callsPerPerson.windowMs / 1000} s per person. Try again shortly.`,
        );
      }
      const token = extra._meta?.progressToken;
      let step = 0;
      const progress = async (message: string) => {
        if (token === undefined) return;
        step += 1;
        await extra
          .sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: step, message },
          })
          .catch(() => undefined);
      };
      let result: Answer;
      try {
        result = await work(args, progress);
      } catch (error) {
        log.info('An MCP tool call failed', { tool, error });
        result = toolError(errorWords(error));
      }
      const { eventId, ...content } = result;
      await record(content.isError ? 'error' : 'ok', eventId);
      return content;
    };

  server.registerTool(
    'upcoming_events',
    {
      title: 'Upcoming events',
      description:
        "The organization's upcoming events, soonest first, as `/events list` shows them: optionally only today, tomorrow or this week (in the person's Slack timezone), or those whose name has some words.",
      inputSchema: {
        range: z.enum(DAY_RANGES).optional().describe('today, tomorrow, or week (today and the next six days)'),
        words: z.string().trim().max(200).optional().describe('Words of the event name'),
        limit: z.number().int().min(1).max(50).default(20).describe('Most events answered'),
      },
      annotations: READ_ONLY,
    },
    run(
      'upcoming_events',
      async (args: { range?: (typeof DAY_RANGES)[number] | undefined; words?: string | undefined; limit: number }) => {
        const snapshot = await deps.catalog.snapshot(deps.interactive());
        const zone = (await deps.slack().zoneOf(userId)) ?? 'UTC';
        const events = upcomingEvents(snapshot, { range: args.range, words: args.words }, zone, deps.clock.now());
        const shown = events.slice(0, args.limit);
        const text =
          shown.length === 0
            ? 'No upcoming events match.'
            : `${events.length} upcoming event${events.length === 1 ? '' : 's'}${events.length > shown.length ? ` (the first ${shown.length})` : ''}:\n${eventLines(shown)}`;
        return answer(text, {
          events: shown.map(eventFacts),
          total: events.length,
          asOf: new Date(snapshot.asOf).toISOString(),
        });
      },
    ),
  );

  server.registerTool(
    'find_event',
    {
      title: 'Find an event',
      description:
        'Finds one event by words of its name or by its id; when none matches, the closest names ("did you mean"); when several do, the choices.',
      inputSchema: { name: EVENT },
      annotations: READ_ONLY,
    },
    run('find_event', async (args: { name: string }) => {
      const event = await oneEvent(deps, args.name);
      if (isAnswer(event)) return event;
      return answer(`${plain(event.name ?? event.id)} (${event.id})`, { event: eventFacts(event) }, event.id);
    }),
  );

  server.registerTool(
    'event_report',
    {
      title: "An event's report",
      description:
        "The event's sales report (sold, capacity, revenue, promo codes), fetched in the person's turn in the same report queue as Slack (3 reports a minute for the whole organization; at most 5 of the person's own waiting), with progress while it waits. Figures only for people the figures rule allows (not guests, not people of another organization).",
      inputSchema: { event: EVENT },
      annotations: READ_ONLY,
    },
    run('event_report', async (args: { event: string }, progress) => {
      const event = await oneEvent(deps, args.event);
      if (isAnswer(event)) return event;
      const label = event.name ?? event.id;
      const person = await deps.slack().personOf(userId);
      const got = await reportForPerson(
        { reports: deps.reports, personOf: async () => person, figuresPolicy: deps.figuresPolicy },
        { eventId: event.id, userId },
        (status) => {
          void progress(
            status.state === 'queued'
              ? `Waiting in the report queue: number ${status.position}, about ${Math.ceil(status.estimatedWaitMs / 1000)} s`
              : 'Fetching the report',
          );
        },
      );
      if ('withheld' in got) return answer(withheldWords(got.withheld), { event: eventFacts(event) }, event.id);
      // Asked again now the report is here: the person may have been made a guest while it waited.
      const gate = showFigures(
        got.report,
        { room: { kind: 'private' }, person: await deps.slack().personOf(userId) },
        deps.figuresPolicy,
      );
      if ('withheld' in gate) return answer(withheldWords(gate.withheld), { event: eventFacts(event) }, event.id);
      return answer(reportText(label, gate.shown), { event: eventFacts(event), report: gate.shown }, event.id);
    }),
  );

  server.registerTool(
    'sales_forecast',
    {
      title: 'Sales pace and forecast',
      description:
        "The event's sales pace and sell-out forecast from its sales history (a report at hand, or one fetched in the person's turn). Comparison with similar events is not offered yet.",
      inputSchema: { event: EVENT },
      annotations: READ_ONLY,
    },
    run('sales_forecast', async (args: { event: string }, progress) => {
      const event = await oneEvent(deps, args.event);
      if (isAnswer(event)) return event;
      if (!deps.insights) return toolError('Sales histories are not kept here, so there is no forecast.', event.id);
      const personOf = deps.slack().personOf;
      const atHand = (await deps.reports.atHand(event.id))?.report;
      const got = atHand
        ? { report: atHand }
        : await reportForPerson(
            { reports: deps.reports, personOf, figuresPolicy: deps.figuresPolicy },
            { eventId: event.id, userId },
            () => void progress('Waiting for the event report'),
          );
      if ('withheld' in got) return answer(withheldWords(got.withheld), undefined, event.id);
      const insight = await deps.insights.of(event.id, got.report);
      if (!insight) return toolError("The event's start is not known, so there is no forecast.", event.id);
      const gate = showFigures(
        insight,
        { room: { kind: 'private' }, person: await personOf(userId) },
        deps.figuresPolicy,
      );
      if ('withheld' in gate) return answer(withheldWords(gate.withheld), undefined, event.id);
      const { forecast } = gate.shown;
      return answer(
        forecastText(event.name ?? event.id, gate.shown),
        { event: eventFacts(event), forecast, comparison: null },
        event.id,
      );
    }),
  );

  server.registerTool(
    'forecast_track_record',
    {
      title: "The forecast's track record",
      description:
        "How well the sell-out forecast did on the organization's last finished events: mean error and how often its range held the outcome (no report call).",
      inputSchema: {},
      annotations: READ_ONLY,
    },
    run('forecast_track_record', async () => {
      if (!deps.insights) return toolError('Sales histories are not kept here, so there is no track record.');
      const record = trackRecordOf(await deps.insights.finished(deps.clock.now()));
      const gate = showFigures(
        record,
        { room: { kind: 'private' }, person: await deps.slack().personOf(userId) },
        deps.figuresPolicy,
      );
      if ('withheld' in gate) return answer(withheldWords(gate.withheld));
      return answer(trackRecordText(gate.shown), {
        events: gate.shown.events.length,
        forecasts: gate.shown.forecasts,
        meanError: gate.shown.meanError ?? null,
        coverage: gate.shown.coverage ?? null,
      });
    }),
  );

  server.registerTool(
    'my_watches',
    {
      title: 'My watches',
      description: 'The watches this person set up: each event, where it is watched, and its conditions.',
      inputSchema: {},
      annotations: READ_ONLY,
    },
    run('my_watches', async () => {
      const listed = (await deps.watches?.list({ setBy: userId })) ?? [];
      const watches = listed.map(({ watch }) => ({
        eventId: watch.eventId,
        eventName: plain(watch.eventName),
        where: watch.personal ? 'a DM to you' : watch.channel,
        conditions: watch.conditions.map((each) => plain(each.key)),
      }));
      const text =
        watches.length === 0
          ? 'You have no watches.'
          : watches
              .map((each) => `- ${each.eventName} (${each.eventId}) in ${each.where}: ${each.conditions.join(', ')}`)
              .join('\n');
      return answer(text, { watches });
    }),
  );

  server.registerTool(
    'request_promo_change',
    {
      title: 'Request a promo code change',
      description:
        "Asks to set a promo code's quantity. It changes nothing: it sends the person, in Slack, the same single-use confirmation `/events promo` gives, and only their click on Confirm there writes the change (once). Only promo editors may ask.",
      inputSchema: {
        event: EVENT,
        code: z.string().trim().min(1).max(64).describe('The promo code (EARLYBIRD) or its id (promo_...)'),
        quantity: z.number().int().min(0).max(1_000_000).describe('The new quantity'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    run('request_promo_change', async (args: { event: string; code: string; quantity: number }, progress) => {
      const promo = parsePromoRef(args.code);
      if ('problem' in promo) return toolError(`Promo code: ${plain(promo.problem, 200)}. Nothing was asked.`);
      const slack = deps.slack();
      const outcome = await requestPromoChange(
        {
          ticketing: deps.ticketing,
          events: deps.catalog,
          catalog: deps.catalog,
          pending: slack.pending,
          activity: deps.activity,
          isEditor: (id) => slack.isEditor(id),
          interactive: deps.interactive,
          clock: deps.clock,
          logger: log,
          sources: promoCodeSources(deps.reports, deps.promoCodes, userId),
        },
        // The confirmation is the person's alone: their DM with the bot.
        { userId, channelId: userId, target: targetOf(args.event), promo, quantity: args.quantity },
        () => progress('Reading the event report for the code'),
      );
      switch (outcome.kind) {
        case 'proposed': {
          const { result } = outcome;
          if (result.kind !== 'confirm') return toolError(proposalWords(result), outcome.eventId);
          await slack.sendPromoConfirmation(userId, result);
          return answer(
            `Sent you a confirmation in Slack (a DM from eventops) to set ${plain(result.change.code ?? result.change.promoId, 64)} of ${plain(result.event.name ?? result.event.id)} to ${result.change.quantity}. Nothing is changed until you click Confirm there; it is valid once, for ${Math.round(slack.pending.ttlMs / 60_000)} minutes.`,
            { sent: true, eventId: result.event.id, quantity: result.change.quantity, written: false },
            outcome.eventId,
          );
        }
        case 'not-editor':
          return toolError('Only promo editors may change promo codes. Nothing was asked.');
        case 'none':
        case 'choices':
          return toolError(
            outcome.kind === 'none'
              ? `No event matches "${plain(args.event)}".${outcome.closest?.length ? ` Did you mean:\n${eventLines(outcome.closest)}` : ''}`
              : `Several events match "${plain(args.event)}"; name one by its id:\n${eventLines(outcome.events)}`,
          );
        case 'code-left-out':
          return toolError(
            `"${plain(outcome.words)}" looks like the event ${plain(outcome.event.name ?? outcome.event.id)} with no code. Its known codes: ${outcome.codes.map((each) => plain(each, 64)).join(', ') || 'none yet'}.`,
          );
        case 'cancelled':
          return toolError(
            `${plain(outcome.event.name ?? outcome.event.id)} is cancelled: its promo codes are not changed.`,
          );
        case 'code-did-you-mean':
          return toolError(
            `No code ${plain(args.code, 64)}; did you mean ${outcome.close.map((each) => plain(each, 64)).join(' or ')}? Nothing was asked.`,
            outcome.event.id,
          );
        case 'code-not-named':
          return toolError(
            `The event's report names no promo code ${plain(outcome.code, 64)}. Known: ${outcome.known.map((each) => plain(each, 64)).join(', ') || 'none'}.`,
          );
        case 'lookup-failed':
        case 'code-lookup-failed':
          return toolError(`${errorWords(outcome.error)} Nothing was asked.`);
      }
    }),
  );
}

/** Why no confirmation was sent, in words. */
function proposalWords(result: Exclude<ProposeResult, { kind: 'confirm' }>): string {
  switch (result.kind) {
    case 'not-editor':
      return 'Only promo editors may change promo codes. Nothing was asked.';
    case 'no-event':
      return 'That event is no longer in the catalog. Nothing was asked.';
    case 'failed':
      return `${errorWords(result.error)} Nothing was asked.`;
  }
}
