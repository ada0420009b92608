import { execFileSync } from 'node:child_process';
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

/**
 * The node that runs the bot: this one, or `BENCH_BOT_NODE` (a path), e.g. the image's Node 24 on
 * a machine with Node 20: `BENCH_BOT_NODE=$(npx -y -p node@24 -- node -p process.execPath)`.
 */
export const botNode = process.env.BENCH_BOT_NODE?.trim() || process.execPath;

/** `botNode`'s version, as the benches print it. */
export const botNodeVersion =
  botNode === process.execPath
    ? process.version
    : execFileSync(botNode, ['-p', 'process.version'], { encoding: 'utf8' }).trim();
