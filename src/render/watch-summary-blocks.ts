import type { Shown, Withheld } from '../figures/may-show-figures.js';
import type { EventCheck, Watch } from '../watches/watch.js';
import { type Block, context, LIMITS, mrkdwnSection, type SlackMessage } from './block-kit.js';
import { cancelledSummaryOpening, cancelledSummaryText } from './cancelled-words.js';
import { joinMrkdwn, type Mrkdwn, md, readerInstant, shorten } from './mrkdwn.js';
import { plural } from './plural.js';
import {
  crossingCounts,
  eventName,
  MAX_SUMMARY_FIGURES,
  promoLines,
  reportFields,
  soldBar,
  soldWords,
} from './watch-words.js';
export interface WatchSummaryInput {
  watch: Watch;
  /** The event's last check, as the figures rule let it through; undefined when never checked, or held back. */
  check: Shown<EventCheck> | undefined;
  /** Why the final figures are held back. */
  withheld?: Withheld | undefined;
  /** Why the watch ended: the event is over, or the service lists it no more. @default 'over' */
  why?: 'over' | 'unlisted' | 'cancelled' | undefined;
}

/** The last reply in the card's thread when the event is over: final figures, promo codes used, alerts and checks. */
export function watchSummaryMessage(input: WatchSummaryInput): SlackMessage {
  const { watch, check } = input;
  const name = eventName(watch, 150);
  // How many alerts came, and for what, says where sales went: only beside the figures.
  const crossed = check ? crossingCounts(watch, check) : undefined;
  const checks = check?.checks ?? 0;
  const unlisted = input.why === 'unlisted';
  const cancelled = input.why === 'cancelled';
  const opening = cancelled
    ? cancelledSummaryOpening(name, input.withheld !== undefined)
    : input.withheld
      ? md`:checkered_flag: *${name}* ${unlisted ? md`is no longer listed by the service` : md`is over`}. The watch has ended.`
      : unlisted
        ? md`:checkered_flag: *${name}* is no longer listed by the service, so the watch has ended. Last figures read:`
        : md`:checkered_flag: *${name}* is over. The watch has ended; final figures:`;
  const blocks: Block[] = [mrkdwnSection(opening)];
  const bar = check ? soldBar(check.report) : undefined;
  if (check) {
    const fields = reportFields(check.report, MAX_SUMMARY_FIGURES);
    if (fields) blocks.push(fields);
    if (bar) blocks.push(mrkdwnSection(bar));
    const promos = promoLines(check.report, 'used');
    if (promos.length > 0) blocks.push(mrkdwnSection(md`*Promo codes used*\n${joinMrkdwn(promos)}`));
    if (!fields && !bar && promos.length === 0) blocks.push(mrkdwnSection(md`The report has no figures to show here.`));
  } else if (input.withheld) {
    blocks.push(mrkdwnSection(md`:lock: Its final sales and revenue are not shown here.`));
  } else {
    blocks.push(mrkdwnSection(md`No report was read while it was watched, so there are no final figures.`));
  }
  if (crossed)
    blocks.push(
      mrkdwnSection(
        crossed.lines.length > 0
          ? md`*Alerts*: ${crossed.total}\n${joinMrkdwn(crossed.lines)}`
          : md`*Alerts*: none (no condition was crossed)`,
      ),
    );
  const about: Mrkdwn[] = [plural(checks, 'check'), md`watched since ${readerInstant(watch.createdAt)}`];
  if (check) about.push(md`last check ${readerInstant(check.checkedAt)}`);
  blocks.push(context(joinMrkdwn(about, md` · `)));
  const sold = check ? soldWords(check.report) : undefined;
  const headline = sold ? md`: ${sold.share}` : md``;
  return {
    text: shorten(
      cancelled
        ? cancelledSummaryText(name)
        : unlisted
          ? md`${name} is no longer listed by the service; the watch has ended${headline}.`
          : crossed
            ? md`${name} is over${headline}. ${plural(crossed.total, 'alert')}, ${plural(checks, 'check')}.`
            : md`${name} is over.`,
      LIMITS.fallbackText,
    ),
    blocks: blocks.slice(0, LIMITS.messageBlocks),
  };
}
