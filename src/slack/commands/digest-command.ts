import type { RespondFn, webApi } from '@slack/bolt';
import type { Digests } from '../../digest/digests.js';
import { parseDigestOn, type Subscription } from '../../digest/subscription.js';
import { digestStatusMessage } from '../../render/digest-blocks.js';
import { escapeText } from '../../render/escape.js';
import { usageMessage } from '../../render/help-blocks.js';
import { plainMessage } from '../../render/promo-blocks.js';
import { isValidTimeZone } from '../../time/zoned.js';
import { USAGE } from '../command-parser.js';
import type { SlackDeps } from '../deps.js';
import { respondPrivately } from '../respond-safely.js';
import { channelProblem, userMessageFor } from '../user-message.js';

export interface DigestRequest {
  respond: RespondFn;
  client: webApi.WebClient;
  channelId: string;
  userId: string;
  args: string[];
}

/** The subscribing user's Slack timezone, or UTC when Slack does not say. */
async function userZone(client: webApi.WebClient, userId: string): Promise<string | undefined> {
  try {
    const info = await client.users.info({ user: userId });
    const zone = info.user?.tz;
    return zone && isValidTimeZone(zone) ? zone : undefined;
  } catch {
    return undefined;
  }
}

/** `/events digest on|off|status|now` in a channel. */
export async function handleDigestCommand(deps: SlackDeps, digests: Digests, request: DigestRequest): Promise<void> {
  const { respond, client, channelId, userId } = request;
  const [action = 'status', ...rest] = request.args;
  const log = deps.logger.child({ command: 'digest', channel: channelId, user: userId });
  const say = (text: string) => respondPrivately(respond, plainMessage(text), log);

  switch (action.toLowerCase()) {
    case 'on': {
      const parsed = parseDigestOn(rest);
      if ('problem' in parsed) {
        await respondPrivately(respond, usageMessage(parsed.problem, USAGE.digest), log);
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
      const window = subscription.days === 1 ? 'the day' : `the next ${subscription.days} days`;
      // Posting the announcement proves the bot may post here before anything is saved.
      try {
        await client.chat.postMessage({
          channel: channelId,
          text: `<@${userId}> set up a daily digest here: events of ${window}, every day at ${subscription.time} (${escapeText(timezone)}).`,
        });
      } catch (error) {
        log.info('Digest not set up: the channel refused the announcement');
        await say(`:warning: ${userMessageFor(error)} The digest was not set up.`);
        return;
      }
      const next = await digests.subscribe(subscription);
      const zoneNote = parsed.timezone
        ? ''
        : detected
          ? ' (your Slack timezone)'
          : ' (Slack did not tell me your timezone)';
      await say(
        `:white_check_mark: Daily digest on: ${subscription.time} ${escapeText(timezone)}${zoneNote}, events of ${window}. First one: ${next.date}.`,
      );
      return;
    }
    case 'off': {
      const removed = await digests.unsubscribe(channelId);
      await say(removed ? 'Daily digest off for this channel.' : 'This channel has no daily digest.');
      return;
    }
    case 'status': {
      const found = await digests.status(channelId);
      if (!found) {
        await say('This channel has no daily digest. Turn one on with `/events digest on [HH:MM] [zone] [--days N]`.');
        return;
      }
      await respondPrivately(respond, digestStatusMessage({ ...found.subscription, nextAt: found.next.at }), log);
      return;
    }
    case 'now': {
      const outcome = await digests.runNow(channelId);
      switch (outcome.kind) {
        case 'sent':
          await say("Posted today's digest.");
          return;
        case 'skipped-empty':
          await say('Nothing is scheduled, and this digest skips empty days: nothing posted.');
          return;
        case 'already-claimed':
          await say("Today's digest was already posted here.");
          return;
        case 'channel-failing':
          await say(
            `:warning: This channel refused the digest, so it is paused. ${channelProblem(outcome.reason) ?? ''}`,
          );
          return;
        case 'failed':
          await say(':warning: The digest could not be posted this time; see the logs.');
          return;
        case 'no-subscription':
          await say('This channel has no daily digest. Turn one on with `/events digest on`.');
          return;
      }
      return;
    }
    default:
      await respondPrivately(
        respond,
        usageMessage(`Unknown digest action "${escapeText(action.slice(0, 20))}".`, USAGE.digest),
        log,
      );
  }
}
