import { webApi } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPosted, postCounted, repliedInThread, SearchTooLong } from '../../src/slack/replies/posted-messages.js';
import { type FakeSlack, startFakeSlack } from '../helpers/fake-slack.js';

let slack: FakeSlack;
let client: webApi.WebClient;
beforeAll(async () => {
  slack = await startFakeSlack();
  client = new webApi.WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
});
afterAll(() => slack.close());

const text = (words: string) => ({ text: words, blocks: [] }) as never;
const metadata = { event_type: 'eventops_digest', event_payload: { subscription: 'C0BUSY', date: '2026-11-23' } };

describe('finding a post again after a crash', () => {
  it('finds a message with its metadata under 450 newer ones (three pages back), and nothing that is not there', async () => {
    const since = Date.now() - 1_000;
    await postCounted(client, undefined, { channel: 'C0BUSY', message: text('the digest'), metadata });
    for (let i = 0; i < 450; i += 1)
      await postCounted(client, undefined, { channel: 'C0BUSY', message: text(`chat ${i}`) });
    const found = await findPosted(client, 'C0BUSY', metadata, since);
    expect(found?.text).toBe('the digest');
    const pages = slack.calls.filter((call) => call.method === 'conversations.history');
    expect(pages.length).toBeGreaterThan(1);
    const other = { ...metadata, event_payload: { ...metadata.event_payload, date: '2026-11-24' } };
    expect(await findPosted(client, 'C0BUSY', other, since)).toBeUndefined();
  });

  it('finds a reply with its metadata behind 250 others in its thread', async () => {
    const parent = await postCounted(client, undefined, { channel: 'C0THREAD', message: text('the card') });
    const thread = { ts: parent as string, broadcast: false };
    for (let i = 0; i < 250; i += 1)
      await postCounted(client, undefined, { channel: 'C0THREAD', message: text(`reply ${i}`), thread });
    const alert = { event_type: 'eventops_watch', event_payload: { kind: 'alert', crossing: 1 } };
    expect(await repliedInThread(client, 'C0THREAD', thread.ts, alert)).toBe(false);
    await postCounted(client, undefined, { channel: 'C0THREAD', message: text('the alert'), metadata: alert, thread });
    expect(await repliedInThread(client, 'C0THREAD', thread.ts, alert)).toBe(true);
  });

  it('cannot tell past 2,000 messages, or when Slack repeats a cursor: it throws rather than answer "not posted"', async () => {
    let pages = 0;
    const endless = {
      conversations: {
        history: async () => {
          pages += 1;
          return { ok: true, messages: [{ ts: `${pages}.0` }], response_metadata: { next_cursor: `page-${pages}` } };
        },
        replies: async () => ({ ok: true, messages: [], response_metadata: { next_cursor: 'again' } }),
      },
    } as unknown as webApi.WebClient;
    await expect(findPosted(endless, 'C0BUSY', metadata, 0)).rejects.toBeInstanceOf(SearchTooLong);
    expect(pages).toBe(10);
    await expect(repliedInThread(endless, 'C0BUSY', '1.0', metadata)).rejects.toBeInstanceOf(SearchTooLong);
  });
});
