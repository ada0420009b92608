import type { App, webApi } from '@slack/bolt';
import { type DigestOnOptions, optionsOf, TIME_OF_DAY } from '../../../digest/subscription.js';
import { DIGEST_HOME_OFF, DIGEST_HOME_ON, DIGEST_HOME_TIME } from '../../../render/digest-blocks.js';
import { type Mrkdwn, md } from '../../../render/mrkdwn.js';
import { digestRefusedWords, turnDigestOnInSlack } from '../../adapters/digest-slack.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { ackFirst } from '../../replies/ack-first.js';
import { userMessageFor } from '../../replies/user-message.js';
import { publishHome } from '../home/home-tab.js';

/** App Home's "Turn on" without a digest to resume: `/events digest on --me`'s defaults. */
const DEFAULTS: DigestOnOptions = { time: undefined, timezone: undefined, days: 1, skipEmpty: false };

/**
 * App Home's controls of the person's own digest: Turn on (again, keeping its settings), Turn off,
 * and the time picker. Each hands over to the digest feature and publishes the tab again, with a
 * line under the section when it did not work.
 */
export function registerDigestHomeActions(app: App, deps: SlackDeps): void {
  const handle = (work: (userId: string, client: webApi.WebClient) => Promise<Mrkdwn | undefined>) => {
    return async ({
      ack,
      body,
      client,
    }: {
      ack: () => Promise<void>;
      body: { user: { id: string } };
      client: webApi.WebClient;
    }) => {
      await ackFirst(ack);
      const userId = body.user.id;
      let notice: Mrkdwn | undefined;
      try {
        notice = await work(userId, client);
      } catch (error) {
        deps.logger.error('A digest button on App Home failed', { user: userId, error });
        notice = userMessageFor(error);
      }
      await publishHome(deps, client, userId, notice ? { digestNotice: notice } : {});
    };
  };

  app.action(
    DIGEST_HOME_ON,
    handle(async (userId, client) => {
      const existing = await deps.digests.status(userId);
      // A stale tab's button: it is on already, and turning it on again would DM the person again.
      if (existing?.subscription.status === 'active') return undefined;
      const options = existing ? optionsOf(existing.subscription) : DEFAULTS;
      const result = await turnDigestOnInSlack(deps, { client, channelId: userId, userId, personal: true }, options);
      return result.kind === 'on' ? undefined : digestRefusedWords(result.error, true);
    }),
  );

  app.action(
    DIGEST_HOME_OFF,
    handle(async (userId) => {
      await deps.digests.unsubscribe(userId);
      return undefined;
    }),
  );

  app.action(DIGEST_HOME_TIME, async (args) => {
    const { action } = args;
    const picked = 'selected_time' in action && typeof action.selected_time === 'string' ? action.selected_time : '';
    await handle(async (userId) => {
      if (!TIME_OF_DAY.test(picked)) return md`Pick a time of day to move your digest to.`;
      const changed = await deps.digests.changeTime(userId, picked);
      return changed ? undefined : md`You have no daily digest: turn it on first.`;
    })(args);
  });
}
