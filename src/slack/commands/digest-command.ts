import type { RespondFn, webApi } from '@slack/bolt';
import type { DigestOutcome } from '../../digest/digest-runner.js';
import type { Digests } from '../../digest/digests.js';
import { parseDigestOn, type Subscription } from '../../digest/subscription.js';
import { plainMessage } from '../../render/block-kit.js';
import { digestStatusMessage } from '../../render/digest-blocks.js';
import { usageMessage } from '../../render/help-blocks.js';
import { clip, escapeText, type Mrkdwn, md, mentionUser } from '../../render/mrkdwn.js';
import { isValidTimeZone } from '../../time/zoned.js';
import { USAGE } from '../command-parser.js';
import type { SlackDeps } from '../deps.js';
import { respondPrivately } from '../respond-safely.js';
import { channelProblem } from '../slack-errors.js';
import { userMessageFor } from '../user-message.js';

export interface DigestRequest {
  respond: RespondFn;
  client: webApi.WebClient;
  channelId: string;
  userId: string;
  args: string[];
}

/** The subscribing user's Slack timezone, or undefined when Slack does not say. */
async function userZone(client: webApi.WebClient, userId: string): Promise<string | undefined> {
  try {
    const info = await client.users.info({ user: userId });
    const zone = info.user?.tz;
    return zone && isValidTimeZone(zone) ? zone : undefined;
  } catch {
    return undefined;
  }
}

/** What `/events digest now` tells the person: "already posted" only when it was. */
function runNowAnswer(outcome: DigestOutcome, now: number): Mrkdwn {
  switch (outcome.kind) {
    case 'sent':
      return md`Posted today's digest.`;
    case 'skipped-empty':
      return md`Nothing is scheduled, and this digest skips empty days: nothing posted.`;
    case 'already-sent':
      return md`Today's digest was already posted here.`;
    case 'in-progress':
      return md`Today's digest is being posted right now.`;
    case 'channel-failing':
      return md`:warning: This channel refused the digest, so it is paused. ${channelProblem(outcome.reason) ?? md``}`;
    case 'failed':
      return outcome.retryAt === undefined
        ? md`:warning: The digest could not be posted, and its grace period is over. It has been logged.`
        : md`:warning: The digest could not be posted just now; I'll try again in about ${Math.max(1, Math.ceil((outcome.retryAt - now) / 60_000))} minute(s).`;
    case 'no-subscription':
      return md`This channel has no daily digest. Turn one on with \`/events digest on\`.`;
  }
}

/** `/events digest on|off|status|now` in a channel. */
export async function handleDigestCommand(deps: SlackDeps, digests: Digests, request: DigestRequest): Promise<void> {
  const { respond, client, channelId, userId } = request;
  const [action = 'status', ...rest] = request.args;
  const log = deps.logger.child({ command: 'digest', channel: channelId, user: userId });
  const say = (text: Mrkdwn) => respondPrivately(respond, plainMessage(text), log);

  try {
    switch (action.toLowerCase()) {
      case 'on': {
        const parsed = parseDigestOn(rest);
        if ('problem' in parsed) {
          await respondPrivately(respond, usageMessage(clip(parsed.problem, 300), USAGE.digest), log);
          return;
        }
        const detected = parsed.timezone ? undefined : await userZone(client, userId);
        const timezone = parsed.timezone ?? detected ?? 'UTC';
        const subscription: Subscription = {
          channelId,
          time: parsed.time ?? '09:00',
          timezone,
          days: parsed.days,
          skipEmpty: parsed.skipEmpty,
          createdBy: userId,
          createdAt: new Date(deps.clock.now()).toISOString(),
          status: 'active',
        };
        const window =
          subscription.days === 1 ? md`today's events` : md`the events of the next ${subscription.days} days`;
        const zone = escapeText(timezone);
        // Posting the announcement proves the bot may post here before anything is saved.
        try {
          await client.chat.postMessage({
            channel: channelId,
            text: md`${mentionUser(userId)} set up a daily digest here: ${window}, every day at ${escapeText(subscription.time)} (${zone}).`,
          });
        } catch (error) {
          log.info('Digest not set up: the channel refused the announcement');
          await say(md`:warning: ${userMessageFor(error)} The digest was not set up.`);
          return;
        }
        const next = await digests.subscribe(subscription);
        const zoneNote = parsed.timezone
          ? md``
          : detected
            ? md` (your Slack timezone)`
            : md` (Slack did not tell me your timezone)`;
        await say(
          md`:white_check_mark: Daily digest on: ${escapeText(subscription.time)} ${zone}${zoneNote}, ${window}. First one: ${escapeText(next.date)}.`,
        );
        return;
      }
      case 'off': {
        const removed = await digests.unsubscribe(channelId);
        await say(removed ? md`Daily digest off for this channel.` : md`This channel has no daily digest.`);
        return;
      }
      case 'status': {
        const found = await digests.status(channelId);
        if (!found) {
          await say(
            md`This channel has no daily digest. Turn one on with \`/events digest on [HH:MM] [zone] [--days N]\`.`,
          );
          return;
        }
        await respondPrivately(respond, digestStatusMessage({ ...found.subscription, nextAt: found.next.at }), log);
        return;
      }
      case 'now':
        await say(runNowAnswer(await digests.runNow(channelId), deps.clock.now()));
        return;
      default:
        await respondPrivately(
          respond,
          usageMessage(md`Unknown digest action "${clip(action, 20)}".`, USAGE.digest),
          log,
        );
    }
  } catch (error) {
    log.error('A digest command failed', { error });
    await say(md`:warning: ${userMessageFor(error)}`);
  }
}
