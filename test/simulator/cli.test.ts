import { afterEach, describe, expect, it } from 'vitest';
import { type ScriptProcess, startScript } from '../helpers/script-process.js';

/*
 * `npm run simulator` as a process: src/simulator/cli.ts, built, run by node (without npm in
 * between, so the signal reaches the simulator itself), with exactly `env`.
 */

const running: ScriptProcess[] = [];
afterEach(async () => {
  for (const cli of running.splice(0)) {
    if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill('SIGKILL');
    await cli.exited;
  }
});

async function startCli(env: Record<string, string>): Promise<ScriptProcess> {
  const cli = await startScript('src/simulator/cli.ts', env);
  running.push(cli);
  return cli;
}

describe('npm run simulator (src/simulator/cli.ts)', () => {
  it('exits 2 naming each bad variable and what was expected', async () => {
    const cli = await startCli({ TICKETING_ORG_LIMIT: 'lots', TICKETING_REPORT_LIMIT: '0/60s' });
    expect(await cli.exited).toBe(2);
    const { stdout, stderr } = cli.output();
    expect(stdout).toBe('');
    expect(stderr).toContain('Invalid simulator configuration:');
    expect(stderr).toContain('TICKETING_ORG_LIMIT: expected <requests>/<window> such as "180/60s", got "lots"');
    expect(stderr).toContain('TICKETING_REPORT_LIMIT: expected <requests>/<window> such as "3/60s", got "0/60s"');
  });

  it('prints a URL and key that answer, with the configured limit, ignores the bot-only variables, and stops on SIGTERM', async () => {
    // The bot would refuse these (a Slack variable without its token, a STORE_URL it cannot open);
    // the simulator reads only its two limits.
    const cli = await startCli({ TICKETING_ORG_LIMIT: '50/1m', SLACK_SIGNING_SECRET: '', STORE_URL: 'nowhere' });
    const [, url] = await cli.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)\n/);
    const [, key] = await cli.waitFor(/API key: (\S+)\n/);
    const response = await fetch(`${url}/v1/events?limit=2`, { headers: { 'Service-Api-Key': key as string } });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-ratelimit-limit')).toBe('50');
    expect(((await response.json()) as { data: unknown[] }).data).toHaveLength(2);
    expect(cli.output().stdout).toContain(`Try: curl -H 'Service-Api-Key: ${key}' '${url}/v1/events?limit=2'`);

    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
  });
});
