import type { BotRig } from './bot.js';
import { answerTo, command as sendCommand } from './bot-actions.js';
import { aheadClock } from './clocks.js';
import { waitFor } from './wait-for.js';

/**
 * A bot whose watches go round fast, for the watch suites on the real Bolt app: report windows of
 * 1 s and checks at most every second, the bot and the simulator on one clock that is moved ahead
 * to the next check rather than waited for.
 */
export function fastWatches() {
  const clock = aheadClock();
  const options = {
    compose: { clock },
    sim: { reportLimit: { limit: 3, windowMs: 1_000 }, clock },
    env: { TICKETING_REPORT_LIMIT: '3/1s', WATCH_MIN_INTERVAL: '1s', TICKETING_REPORT_CACHE_TTL: '0' },
  };

  /** Runs scheduler turns until one checks an event, moving the clock to the next one due. */
  async function check(r: BotRig) {
    let last: unknown;
    return waitFor(
      async () => {
        const turn = await r.bot.watches.turn();
        last = turn;
        if (turn.kind === 'idle' && turn.nextAt !== undefined) clock.advance(Math.max(0, turn.nextAt - clock.now()));
        return turn.kind === 'checked' && turn;
      },
      { what: 'a check', timeoutMs: 10_000 },
    ).catch((error: unknown) => {
      throw new Error(`no check came: ${JSON.stringify(last)}`, { cause: error });
    });
  }

  return { clock, options, check };
}

/** `/events <text>`, signed (in C0001 unless said); its answer after any "fetching" notice, as JSON. */
export async function watchCommand(r: BotRig, text: string, user = 'U0EDITOR', channel = 'C0001') {
  const { responseUrl } = await sendCommand(r, text, user, channel);
  return JSON.stringify(await answerTo(r, responseUrl));
}
