import { createServer } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import { startRedis } from '../helpers/redis-server.js';

describe('the tests’ own redis-server', () => {
  it('starts on another port when the one it picked is taken by another process, and is that redis-server', async () => {
    const taken = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => new Promise<void>((resolve) => taken.close(() => resolve())));
    const heldPort = (taken.address() as { port: number }).port;
    const redis = await startRedis({ firstPort: heldPort });
    onTestFinished(() => redis.stop());
    expect(redis.port).not.toBe(heldPort);
    const store = await openStore(`${redis.url}/0`);
    onTestFinished(() => store.close());
    await store.keyValue.set('probe', 'answered');
    expect(await store.keyValue.get('probe')).toBe('answered');
  });
});
