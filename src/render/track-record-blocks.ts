import type { Shown, Withheld } from '../figures/may-show-figures.js';
import type { TrackedEvent, TrackRecord } from '../forecast/track-record.js';
import { context, header, LIMITS, mrkdwnSection, plainMessage, type SlackMessage } from './block-kit.js';
import { code, joinMrkdwn, type Mrkdwn, md, readerDay, shorten } from './mrkdwn.js';
import { plural } from './plural.js';
import { withheldWords } from './withheld-words.js';

/**
 * The forecast's track record (issue 35), as people read it: how far off the forecast of sales at
 * the start was at 25%, 50% and 75% of each finished event's sale, and how often its range held
 * what happened. Error shares and counts only: no event's sales figures.
 */

const percent = (share: number) => Math.round(share * 100);

/** "off by 9% of capacity on average over the last 8 finished events (24 forecasts); its range held 79% of them". */
function summaryWords(record: TrackRecord): Mrkdwn | undefined {
  if (record.meanError === undefined || record.coverage === undefined) return undefined;
  const events = record.events.filter((e) => e.forecasts.length > 0).length;
  return md`off by ${percent(record.meanError)}% of capacity on average over the last ${plural(events, 'finished event')} (${plural(record.forecasts, 'forecast')} at 25%, 50% and 75% of each sale); its 80% range held the outcome ${percent(record.coverage)}% of the time`;
}

const NONE = md`No finished events with a sales history to measure the forecast by yet: it is measured on each event once it has started.`;

/** App Home's line: the organization's own forecast error and range coverage, and where to read more. */
export function forecastAccuracyLine(record: TrackRecord): Mrkdwn {
  const summary = summaryWords(record);
  const more = md`\`/events forecast accuracy\``;
  return summary ? md`:dart: Sales forecasts here were ${summary}. More: ${more}` : md`:dart: ${NONE}`;
}

/** One event's line: when it started, and how far off each forecast was. */
function eventLine(event: TrackedEvent): Mrkdwn {
  const name = event.eventId ? code(event.eventId, 60) : md`An event`;
  if (event.forecasts.length === 0)
    return md`• ${name} (started ${readerDay(event.startsAtMs)}): too little history for a forecast at 25%, 50% or 75% of its sale`;
  const each = event.forecasts.map(
    (f) => md`${percent(f.share)}%: off by ${percent(f.error)}%${f.held ? md`` : md` (outside its range)`}`,
  );
  return md`• ${name} (started ${readerDay(event.startsAtMs)}): ${joinMrkdwn(each, md`; `)}`;
}

/** `/events forecast accuracy` held back by the figures rule (a guest, someone of another organization). */
export function forecastAccuracyWithheldMessage(withheld: Withheld): SlackMessage {
  return plainMessage(md`The forecast track record is not shown here: ${withheldWords(withheld)}`);
}

/** `/events forecast accuracy`: the summary, then each finished event measured (as the figures rule allows). */
export function forecastAccuracyMessage(record: Shown<TrackRecord>): SlackMessage {
  const summary = summaryWords(record);
  if (!summary) return { text: NONE, blocks: [header(md`Forecast accuracy`), mrkdwnSection(NONE)] };
  const lead = md`Sales forecasts here were ${summary}.`;
  const lines = record.events.slice(0, 10).map(eventLine);
  return {
    text: shorten(md`Forecast accuracy: ${lead}`, LIMITS.fallbackText),
    blocks: [
      header(md`Forecast accuracy`),
      mrkdwnSection(lead),
      mrkdwnSection(shorten(joinMrkdwn(lines), LIMITS.sectionText)),
      context(
        md`What the forecast said at 25%, 50% and 75% of each sale (from what was known then) against what sold by the start; errors are shares of capacity.`,
      ),
    ],
  };
}
