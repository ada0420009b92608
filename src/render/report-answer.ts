import type { Shown, Withheld } from '../figures/may-show-figures.js';
import type { RateLimitSpec } from '../ticketing/rate-limit.js';
import { LIMITS, plainMessage, type SlackMessage, warningMessage } from './block-kit.js';
import { code, type Mrkdwn, md, shorten } from './mrkdwn.js';
import { type ReportStatusContext, reportProgressMessage, type ShownReportStatus } from './report-blocks.js';
import { reportSalesBlocks, type SalesFigures } from './sales-blocks.js';
import { postInChannelBlocks, type SharingDoubt } from './shared-channel-blocks.js';
import { withheldWords } from './withheld-words.js';

/**
 * What a report's message shows, composed once for every way it reaches a person (a channel
 * message, a private answer, a stream's last blocks, a post in the channel).
 */
export interface ReportAnswer {
  status: ShownReportStatus;
  label: string;
  reportLimit: RateLimitSpec;
  about: ReportStatusContext;
  /** The sales history and forecast, as the figures rule let them through (none: the report alone). */
  sales?: Shown<SalesFigures> | undefined;
  /** Kept out of a channel shared with another organization: the report offers to post it there. */
  offerToPost?: SharingDoubt | undefined;
}

/**
 * A report's message: its status (the report, or why it will not come), the sales under a report,
 * and the offer to post it in the channel; the text says the forecast too.
 */
export function reportAnswerMessage(answer: ReportAnswer): SlackMessage {
  const { status, label } = answer;
  const rendered = reportProgressMessage(status, label, answer.reportLimit, answer.about);
  const sales =
    status.state === 'report' && answer.sales
      ? reportSalesBlocks({ eventName: label, figures: answer.sales })
      : undefined;
  const offer =
    status.state === 'report' && answer.offerToPost
      ? postInChannelBlocks({ eventId: answer.about.eventId, label, why: answer.offerToPost })
      : [];
  const blocks = [...rendered.blocks, ...(sales?.blocks ?? []), ...offer].slice(0, LIMITS.messageBlocks);
  const text = sales?.text ? shorten(md`${rendered.text}. ${sales.text}`, LIMITS.fallbackText) : rendered.text;
  return { text, blocks };
}

/** A person the figures rule holds back (a guest, a stranger) is told privately, before any report call. */
export function reportHeldMessage(label: string, withheld: Withheld): SlackMessage {
  return warningMessage(md`Report for ${code(label, 150)}: ${withheldWords(withheld)}`);
}

/** What a channel reads when the report asked there is held back: why is the asker's alone to read. */
export function reportNotHereMessage(label: string): SlackMessage {
  return plainMessage(md`The report for ${code(label, 150)} is not shown in this channel.`);
}

/** The private message once Post in channel has posted the report (`unattached`: why no file came with it). */
export function postedInChannelMessage(unattached: Mrkdwn | undefined): SlackMessage {
  return plainMessage(
    unattached
      ? md`:white_check_mark: Posted the report in the channel. ${unattached}`
      : md`:white_check_mark: Posted the report in the channel.`,
  );
}

/** Slack refused the post in the channel (`slackError`: its code). */
export function notPostedInChannelMessage(slackError: string | undefined): SlackMessage {
  return plainMessage(
    md`The report could not be posted in the channel (${code(slackError ?? 'error', 60)}). Invite me with \`/invite @eventops\`, then click Post in channel again.`,
  );
}

/** Why a report's message came without the full report as a file in its thread. */
export const ATTACHMENT_NOTES = {
  sharedChannel: md`Posted in the channel, it comes with the full report as a file in its thread.`,
  notInChannel: md`Invite me to this channel (\`/invite @eventops\`) to get the full report as a file.`,
  missingScope: md`The full report could not be attached: the app lacks the files:write scope.`,
  failed: md`The full report could not be attached this time.`,
} as const;
