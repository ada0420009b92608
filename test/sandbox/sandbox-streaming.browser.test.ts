import { describe, expect, it } from 'vitest';
import { launchChromium } from './launch-chromium.js';
import { useSandboxInBrowser } from './sandbox-in-browser.js';

// Issue 37 item 4: the sandbox shows a streaming message, its chunks arriving, then its final
// blocks, in a real Chromium. The steps are driven through the sandbox's Web API one at a time
// (what the page shows between two chunks is then certain); a real report ends the same way.
const rig = useSandboxInBrowser(() => launchChromium());

async function call(method: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await fetch(`${rig.stack.sandbox.apiUrl}${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(args),
  });
  const answer = (await response.json()) as Record<string, unknown>;
  expect(answer).toMatchObject({ ok: true });
  return answer;
}

const task = (id: string, title: string, status: string, details?: string) => ({
  type: 'task_update',
  id,
  title,
  status,
  ...(details ? { details } : {}),
});

describe('a streamed message in the sandbox', () => {
  it('shows each chunk as it arrives, then the blocks it stops with', async () => {
    // Slack streams only replies: the stream answers a message, in its thread.
    const parent = await call('chat.postMessage', { channel: 'CGENERAL01', text: 'Report for Jazz Night: queued' });
    const started = await call('chat.startStream', {
      channel: 'CGENERAL01',
      thread_ts: parent.ts,
      recipient_user_id: 'UEDITOR01',
      recipient_team_id: 'TSANDBOX',
      task_display_mode: 'plan',
      chunks: [
        { type: 'plan_update', title: 'Report for &lt;b&gt;Jazz&lt;/b&gt; Night' },
        task('queue', 'Waiting its turn', 'in_progress', 'position 2, about 40 s'),
        task('fetch', 'Fetching the report', 'pending'),
      ],
    });
    const ts = String(started.ts);
    await rig.page.locator(`[data-thread="${String(parent.ts)}"]`).click();
    const message = rig.page.locator(`#thread [data-testid=message][data-ts="${ts}"]`);
    const stream = message.locator('[data-testid=stream]');
    const queue = stream.locator('[data-task=queue]');
    await expect.poll(() => stream.getAttribute('data-streaming'), { timeout: 10_000 }).toBe('yes');
    // The event's name is text, never markup: Slack's entities decoded, then shown as written.
    expect(await stream.locator('.stream-title').innerText()).toContain('Report for <b>Jazz</b> Night');
    expect(await message.locator('b', { hasText: 'Jazz' }).count()).toBe(0);
    await expect.poll(() => queue.innerText()).toContain('position 2, about 40 s');

    await call('chat.appendStream', {
      channel: 'CGENERAL01',
      ts,
      chunks: [task('queue', 'Waiting its turn', 'in_progress', 'position 1, about 20 s')],
    });
    await expect.poll(() => queue.innerText(), { timeout: 10_000 }).toContain('position 1, about 20 s');
    expect(await queue.getAttribute('data-status')).toBe('in_progress');

    await call('chat.appendStream', {
      channel: 'CGENERAL01',
      ts,
      chunks: [task('queue', 'Waiting its turn', 'complete'), task('fetch', 'Fetching the report', 'in_progress')],
    });
    await expect.poll(() => queue.getAttribute('data-status'), { timeout: 10_000 }).toBe('complete');
    expect(await stream.locator('[data-task=fetch]').getAttribute('data-status')).toBe('in_progress');

    await call('chat.stopStream', {
      channel: 'CGENERAL01',
      ts,
      chunks: [task('fetch', 'Fetching the report', 'complete')],
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*Report: Jazz Night* Tickets sold 120' } }],
    });
    await expect.poll(() => stream.getAttribute('data-streaming'), { timeout: 10_000 }).toBe('no');
    await expect.poll(() => message.innerText()).toContain('Tickets sold 120');
    expect(await stream.locator('[data-task=fetch]').getAttribute('data-status')).toBe('complete');
  });

  it('streams a report the bot is asked for in a reply under its notice, and edits the notice to the report', async () => {
    const event = rig.nameableEvent();
    await rig.type(`/events report ${event.id}`);
    const notice = rig.page.locator('#messages [data-testid=message]', { hasText: 'Tickets sold' }).filter({
      hasText: event.name,
    });
    await expect.poll(() => notice.count(), { timeout: 20_000 }).toBe(1);
    await notice.locator('[data-thread]').click();
    const stream = rig.page.locator('#thread [data-testid=stream][data-streaming=no]');
    await expect.poll(() => stream.count(), { timeout: 10_000 }).toBe(1);
    const statuses = await stream
      .locator('[data-testid=stream-task]')
      .evaluateAll((tasks) => tasks.map((each) => each.getAttribute('data-status')));
    expect(statuses).toEqual(['complete', 'complete', 'complete']);
  });
});
