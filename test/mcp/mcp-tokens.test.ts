import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { takeToolCall } from '../../src/mcp/call-limit.js';
import { McpTokens } from '../../src/mcp/mcp-tokens.js';
import { openStore } from '../../src/store/open-store.js';
import type { StoreHandle } from '../../src/store/store-handle.js';
import { ManualClock } from '../helpers/clocks.js';

const HOUR = 3_600_000;
let store: StoreHandle | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

async function tokens(clock: ManualClock) {
  store = await openStore('sqlite://:memory:');
  return { tokens: new McpTokens({ store: store.keyValue, clock, ttlMs: 24 * HOUR }), keyValue: store.keyValue };
}

describe('McpTokens', () => {
  it('keeps only the hash, stands for its person until it expires, and lists its last use', async () => {
    const clock = new ManualClock(Date.UTC(2026, 11, 1));
    const { tokens: made, keyValue } = await tokens(clock);
    const { token, expiresAt } = await made.issue('U0ALICE');
    expect(expiresAt).toBe(clock.now() + 24 * HOUR);
    expect(await keyValue.get(`mcp-token:${token}`)).toBeUndefined();
    const hash = createHash('sha256').update(token).digest('hex');
    expect(await keyValue.get(`mcp-token:${hash}`)).toMatchObject({ userId: 'U0ALICE' });
    expect(JSON.stringify(await keyValue.get('mcp-token-of:U0ALICE'))).not.toContain(token);

    expect(await made.of('U0ALICE')).toEqual({ createdAt: clock.now(), expiresAt, lastUsedAt: undefined });
    clock.time += HOUR;
    expect(await made.verify(token)).toBe('U0ALICE');
    expect((await made.of('U0ALICE'))?.lastUsedAt).toBe(clock.now());
    // A use within the minute is not written again.
    clock.time += 30_000;
    await made.verify(token);
    expect((await made.of('U0ALICE'))?.lastUsedAt).toBe(clock.now() - 30_000);

    clock.time = expiresAt;
    expect(await made.verify(token)).toBeUndefined();
    expect(await made.of('U0ALICE')).toBeUndefined();
  });

  it('ends the old token when a new one is made, and any token at once on revoke', async () => {
    const clock = new ManualClock(Date.UTC(2026, 11, 1));
    const { tokens: made } = await tokens(clock);
    const first = await made.issue('U0BOB');
    const second = await made.issue('U0BOB');
    expect(await made.verify(first.token)).toBeUndefined();
    expect(await made.verify(second.token)).toBe('U0BOB');
    expect(await made.revoke('U0BOB')).toBe(true);
    expect(await made.verify(second.token)).toBeUndefined();
    expect(await made.revoke('U0BOB')).toBe(false);
    for (const bad of ['', 'eo_mcp_', 'not-a-token', `eo_mcp_${'x'.repeat(300)}`])
      expect(await made.verify(bad)).toBeUndefined();
  });
});

describe('takeToolCall', () => {
  it('takes at most the limit in a rolling window, per person', async () => {
    store = await openStore('sqlite://:memory:');
    const { keyValue } = store;
    const limit = { limit: 2, windowMs: 1_000 };
    const take = (userId: string, now: number) => takeToolCall(keyValue, userId, limit, now);
    expect([await take('U1', 0), await take('U1', 100), await take('U1', 200)]).toEqual([true, true, false]);
    expect(await take('U2', 200)).toBe(true);
    expect(await take('U1', 1_000)).toBe(true);
    expect(await take('U1', 1_050)).toBe(false);
  });
});
