import type { RespondFn } from '@slack/bolt';
import { trackRecordOf } from '../../../forecast/track-record.js';
import type { Logger } from '../../../logger.js';
import { plainMessage } from '../../../render/block-kit.js';
import { md } from '../../../render/mrkdwn.js';
import { forecastAccuracyMessage } from '../../../render/track-record-blocks.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { respondPrivately } from '../../replies/respond-safely.js';
import { userMessageFor } from '../../replies/user-message.js';

/**
 * `/events forecast accuracy`: the forecast's track record on the organization's last finished
 * events, from their stored histories (no report call), to the person who asked only.
 */
export async function answerForecastAccuracy(deps: SlackDeps, respond: RespondFn, log: Logger): Promise<void> {
  if (!deps.insights) {
    await respondPrivately(
      respond,
      plainMessage(md`Sales forecasts are not kept here, so there is no track record.`),
      log,
    );
    return;
  }
  let message: ReturnType<typeof forecastAccuracyMessage>;
  try {
    message = forecastAccuracyMessage(trackRecordOf(await deps.insights.finished(deps.clock.now())));
  } catch (error) {
    log.warn('The forecast track record could not be read', { error });
    message = plainMessage(md`The finished events' sales histories could not be read: ${userMessageFor(error)}`);
  }
  await respondPrivately(respond, message, log);
}
