import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { keepMessages, keptMessagesPath } from '../../src/sandbox/kept-messages.js';
import { BOT_ID, SandboxState } from '../../src/sandbox/sandbox-state.js';

let folder = '';
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'kept-messages-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('the sandbox messages kept beside its store', () => {
  it('lives beside a SQLite file under its name, and nowhere for a store in memory', () => {
    expect(keptMessagesPath('sqlite://./data/sandbox.sqlite', '/srv/app')).toBe('/srv/app/data/sandbox.messages.json');
    expect(keptMessagesPath('sqlite:///tmp/x/other.db', '/srv/app')).toBe('/tmp/x/other.messages.json');
    expect(keptMessagesPath('sqlite://:memory:', '/srv/app')).toBeUndefined();
  });

  it('comes back at the next start, and what is posted then gets a later ts and a new file id', async () => {
    const path = join(folder, 'sandbox.messages.json');
    const first = new SandboxState();
    const kept = await keepMessages(first, path, silentLogger);
    const fileId = first.nextId('F');
    const card = first.post({
      channel: 'CGENERAL01',
      author: BOT_ID,
      text: 'Watching: Winter Gala',
      blocks: [],
      files: [{ id: fileId, name: 'report.json', title: 'Report', content: '{}' }],
    });
    first.post({ channel: 'CGENERAL01', author: BOT_ID, text: 'an alert', blocks: [], threadTs: card.ts });
    await kept.flush();

    const second = new SandboxState();
    await keepMessages(second, path, silentLogger);
    expect(second.messages.map((message) => message.text)).toEqual(['Watching: Winter Gala', 'an alert']);
    expect(second.find('CGENERAL01', card.ts)?.files?.[0]?.id).toBe(fileId);
    expect(Number(second.nextTs())).toBeGreaterThan(Number(second.messages.at(-1)?.ts));
    expect(second.nextId('F')).not.toBe(fileId);
  });
});
