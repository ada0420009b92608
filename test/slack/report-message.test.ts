import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { webApi } from '@slack/bolt';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { plainMessage } from '../../src/render/block-kit.js';
import { md } from '../../src/render/mrkdwn.js';
import { isSlackHook, ReportMessage } from '../../src/slack/reports/report-message.js';

/** A loopback server that keeps the bodies posted to it. */
async function listener(): Promise<{ url: string; bodies: string[]; server: Server }> {
  const bodies: string[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      bodies.push(body);
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies, server };
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

describe('a stored response URL', () => {
  it("is used only when it is Slack's; any other gets nothing, and the person gets the report by DM", async () => {
    const slack = await listener();
    const elsewhere = await listener();
    servers.push(slack.server, elsewhere.server);
    const dms: Record<string, unknown>[] = [];
    const client = {
      slackApiUrl: `${slack.url}/api/`,
      chat: { postMessage: async (args: Record<string, unknown>) => dms.push(args) },
    } as unknown as webApi.WebClient;
    const message = plainMessage(md`Report: Gala (Tickets sold: 520)`);

    const tampered = ReportMessage.resume(
      client,
      { kind: 'private', userId: 'U0ALICE', responseUrl: `${elsewhere.url}/collect` },
      silentLogger,
    );
    await tampered.show(message, true);
    expect(elsewhere.bodies).toEqual([]);
    expect(dms).toMatchObject([{ channel: 'U0ALICE', text: message.text }]);

    const genuine = ReportMessage.resume(
      client,
      { kind: 'private', userId: 'U0ALICE', responseUrl: `${slack.url}/hooks/T1/B2/x` },
      silentLogger,
    );
    await genuine.show(message, true);
    expect(slack.bodies).toHaveLength(1);
    expect(dms).toHaveLength(1);
  });

  it("counts hooks.slack.com over https as Slack's, and the Web API's own origin only off slack.com", () => {
    expect(isSlackHook('https://hooks.slack.com/commands/T1/2/x', undefined)).toBe(true);
    expect(isSlackHook('https://hooks.slack.com/actions/T1/2/x', 'https://slack.com/api/')).toBe(true);
    expect(isSlackHook('http://hooks.slack.com/commands/T1/2/x', undefined)).toBe(false);
    expect(isSlackHook('https://hooks.slack.com.evil.example/x', undefined)).toBe(false);
    expect(isSlackHook('https://hooks.slack.com:8443/x', undefined)).toBe(false);
    expect(isSlackHook('https://slack.com/api/chat.postMessage', 'https://slack.com/api/')).toBe(false);
    expect(isSlackHook('http://127.0.0.1:9/hooks/x', 'http://127.0.0.1:9/api/')).toBe(true);
    expect(isSlackHook('http://127.0.0.1:8/hooks/x', 'http://127.0.0.1:9/api/')).toBe(false);
    expect(isSlackHook('not a url', undefined)).toBe(false);
  });
});
