import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { DAY_RANGES, type EventTarget, resolveEvent, upcomingEvents } from '../catalog/find-events.js';
import { showFigures } from '../figures/may-show-figures.js';
import { trackRecordOf } from '../forecast/track-record.js';
import { reportForPerson } from '../reports/report-for-person.js';
import { tryParseId } from '../ticketing/ids.js';
import type { TicketingEvent } from '../ticketing/schemas.js';
import type { McpDeps } from './mcp-deps.js';
import { type Answer, answer, type toolCall, toolError } from './tool-call.js';
import {
  comparisonFacts,
  comparisonText,
  eventFacts,
  eventLines,
  forecastText,
  plain,
  reportText,
  trackRecordText,
  withheldWords,
} from './tool-texts.js';

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, openWorldHint: false } as const;
export const EVENT = z.string().trim().min(1).max(200).describe('The event: its id (evt_...) or words of its name');

export const targetOf = (text: string): EventTarget => {
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
 * The read-only tools of one person (`userId`): events, a report, the forecast, the track record,
 * the person's watches. Figures go through the figures rule about that person, as to a DM.
 */
export function registerEventTools(
  server: McpServer,
  deps: McpDeps,
  userId: string,
  run: ReturnType<typeof toolCall>,
): void {
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
        "The event's sales pace and sell-out forecast from its sales history (a report at hand, or one fetched in the person's turn), and where it stands against the organization's similar finished events: its share sold now, theirs at the same time before their start (range and median), and what they ended at; with too few similar events, how many it needs. Figures only for people the figures rule allows.",
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
        `${forecastText(event.name ?? event.id, gate.shown)}\n${comparisonText(gate.shown)}`,
        { event: eventFacts(event), forecast, comparison: comparisonFacts(gate.shown) },
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
}
