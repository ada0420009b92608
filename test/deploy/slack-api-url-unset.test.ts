import { describe, expect, it } from 'vitest';
import { fakeSlackToken } from '../helpers/fake-tokens.js';
import { startScript } from '../helpers/script-process.js';

/*
 * "Could not reach Slack" when SLACK_API_URL is not set: the real process looks for Slack at
 * https://slack.com/api/. A test must not depend on reaching (or not reaching) slack.com, so the
 * process is started with name lookups that fail for every host but this machine's (`NO_DNS`, a
 * preload that makes `dns.lookup` answer ENOTFOUND), as on a machine with no DNS or a blocked
 * network: no request leaves it. What this proves: with SLACK_API_URL unset, the refusal names
 * slack.com, says the variable is not set, and says what to check, in one line. It does not prove
 * how a real outage of slack.com reads (its cause may be another code).
 */
const NO_DNS = `data:text/javascript,${encodeURIComponent(`
import dns from 'node:dns';
const lookup = dns.lookup;
dns.lookup = (host, options, callback) => {
  if (host === 'localhost' || host === '127.0.0.1') return lookup(host, options, callback);
  const done = typeof options === 'function' ? options : callback;
  const error = Object.assign(new Error('getaddrinfo ENOTFOUND ' + host), { code: 'ENOTFOUND', hostname: host });
  process.nextTick(() => done(error));
};
`)}`;

describe('a workspace start that cannot reach Slack, SLACK_API_URL not set', () => {
  it('names https://slack.com/api/, says SLACK_API_URL is not set, and what to check, in one line, exit 2', async () => {
    const main = await startScript(
      'src/main.ts',
      {
        LOG_LEVEL: 'info',
        PORT: '0',
        HOST: '127.0.0.1',
        SLACK_BOT_TOKEN: fakeSlackToken('b', 'unset-api-url'),
        SLACK_SIGNING_SECRET: 'unset-api-url-signing-secret',
        TICKETING_API_URL: 'simulator',
        STORE_URL: 'sqlite://:memory:',
      },
      { nodeArgs: ['--import', NO_DNS] },
    );
    const timer = setTimeout(() => main.child.kill('SIGKILL'), 25_000);
    const code = await main.exited;
    clearTimeout(timer);
    const { stderr } = main.output();
    const plain = stderr.split('\n').filter((line) => line.trim() && !line.startsWith('{'));
    expect(code).toBe(2);
    expect(stderr).not.toMatch(/^\s+at /m);
    expect(plain, stderr).toHaveLength(1);
    expect(plain[0]).toMatch(
      /^SLACK_API_URL \(not set\): could not reach Slack at https:\/\/slack\.com\/api\/ \(ENOTFOUND\); check this machine's network and proxy \(HTTPS_PROXY\), or set SLACK_API_URL$/,
    );
  });
});
