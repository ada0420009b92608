import { fakeSlackToken } from '../test/helpers/fake-tokens.js';

/**
 * The environment a benchmark starts one bot process with: nothing of this process's but PATH,
 * loopback on a free port, a fake bot token named after it, and `extra` (its Slack, service, store).
 */
export function benchBotEnv(
  name: string,
  signingSecret: string,
  extra: Record<string, string>,
): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    SLACK_BOT_TOKEN: fakeSlackToken('b', name),
    SLACK_SIGNING_SECRET: signingSecret,
    ...extra,
  };
}
