import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/sandbox-server.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const api = async (s: Sandbox, method: string, args: Record<string, unknown>) => {
  const response = await fetch(`${s.apiUrl}${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(args),
  });
  return (await response.json()) as Record<string, unknown>;
};

describe('the sandbox as the bot Slack', () => {
  it('answers an unknown Web API method like Slack does, and logs it', async () => {
    const lines: string[] = [];
    sandbox = await startSandbox({ logger: createLogger({ write: (line) => lines.push(line) }) });
    expect(await api(sandbox, 'reactions.add', { name: 'tada' })).toEqual({ ok: false, error: 'unknown_method' });
    expect(lines.some((line) => line.includes('reactions.add'))).toBe(true);
  });

  it('posts, updates in place, keeps ephemeral messages and DMs to their person, and opens DMs by user id', async () => {
    sandbox = await startSandbox({ logger: createLogger({ write: () => {} }) });
    const posted = await api(sandbox, 'chat.postMessage', { channel: 'CGENERAL01', text: 'hello' });
    await api(sandbox, 'chat.update', { channel: 'CGENERAL01', ts: posted.ts, text: 'hello again' });
    await api(sandbox, 'chat.postEphemeral', { channel: 'CGENERAL01', user: 'UEDITOR01', text: 'only you' });
    const dm = await api(sandbox, 'chat.postMessage', { channel: 'UVIEWER02', text: 'psst' });
    expect(dm.channel).toBe('DVIEWER02');
    const editor = sandbox.state.visibleTo('UEDITOR01').messages.map((m) => m.text);
    const viewer = sandbox.state.visibleTo('UVIEWER02').messages.map((m) => m.text);
    expect(editor).toEqual(['hello again', 'only you']);
    expect(viewer).toEqual(['hello again', 'psst']);
    expect(sandbox.state.visibleTo('UVIEWER02').channels.map((c) => c.id)).toEqual([
      'CGENERAL01',
      'COPS000002',
      'DVIEWER02',
    ]);
    expect(await api(sandbox, 'users.info', { user: 'UVIEWER02' })).toMatchObject({ user: { tz: 'Asia/Kolkata' } });
  });
});
