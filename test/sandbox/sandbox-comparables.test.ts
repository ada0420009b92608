import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { type SandboxStack, startSandboxStack } from '../../src/sandbox/sandbox-stack.js';
import { BRISK_EVENTS } from '../../src/simulator/moving-figures.js';
import type { Simulator } from '../../src/simulator/server.js';

/**
 * Issue 45: the sandbox shows at once where an event stands against similar ones. Its seeded
 * history (the simulator's past) gives the events listed first similar finished events, so a
 * report there, asked as the page asks it, says where the event stands.
 */

const open: SandboxStack[] = [];
afterEach(async () => {
  for (const each of open.splice(0)) await each.close();
});

/** A request to the sandbox as its page sends it (Host and Origin its own). */
function send(url: string, path: string, headers: Record<string, string>, body?: string) {
  const { port } = new URL(url);
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: body ? 'POST' : 'GET',
        path,
        headers: { host: `127.0.0.1:${port}`, ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Types a command into the page's composer, as a person would. */
async function typeCommand(stack: SandboxStack, text: string) {
  const url = stack.sandbox.url;
  const page = await send(url, '/', {});
  const token = /<meta name="sandbox-token" content="([0-9a-f]+)"/.exec(page.body)?.[1] ?? '';
  const headers = { 'content-type': 'application/json', origin: new URL(url).origin, 'x-sandbox-token': token };
  const answer = await send(
    url,
    '/ui/command',
    headers,
    JSON.stringify({ user: 'UEDITOR01', channel: 'CGENERAL01', text }),
  );
  expect(answer.status).toBe(200);
}

const listedFirst = (sim: Simulator, now: number) =>
  sim.catalog.events
    .filter((event) => event.status === 'published' && sim.salesProfile(event.id).endMs > now && event.startsAtMs > now)
    .sort((a, b) => a.startsAtMs - b.startsAtMs || a.id.localeCompare(b.id))
    .slice(0, BRISK_EVENTS);

describe('the sandbox at start', () => {
  it('answers a report on an event listed first with where it stands against similar events', async () => {
    const stack = await startSandboxStack({
      env: { LOG_LEVEL: 'error' },
      logger: createLogger({ level: 'error', write: () => {} }),
    });
    open.push(stack);
    await stack.salesHistorySeeded;
    const sim = stack.bot.simulator as Simulator;
    // Minutes from its start, so it has not started by the time the bot answers.
    const event = listedFirst(sim, Date.now()).find((each) => each.startsAtMs > Date.now() + 5 * 60_000);
    if (!event) throw new Error('the sandbox lists an upcoming event');
    await typeCommand(stack, `/events report ${event.id}`);
    // The report is streamed: its words are in its final blocks.
    const said = () =>
      stack.sandbox.state.messages.find((message) => JSON.stringify(message.blocks ?? []).includes('similar events'));
    await expect.poll(said, { timeout: 30_000 }).toBeDefined();
    const blocks = JSON.stringify(said()?.blocks);
    expect(blocks).toMatch(
      /:bar_chart: \d+% sold with \d+ (hours?|days?) to go; similar events( at the same venue)?( on the same weekday)? were at \d+(-\d+)?% \(median \d+%\) then, and ended at \d+(-\d+)?% \(\d+ events\)\./,
    );
    expect(blocks).toContain('Similar: median');
  });
});
