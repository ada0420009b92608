import { describe, expect, it } from 'vitest';
import { Closers } from '../../src/lifecycle/closers.js';
import { shutdownInOrder } from '../../src/lifecycle/shutdown.js';
import { WorkTracker } from '../../src/lifecycle/work-tracker.js';
import { silentLogger } from '../../src/logger.js';

describe('shutdownInOrder', () => {
  it('stops what starts work, waits for the work in flight, stops the app, then closes in reverse', async () => {
    const steps: string[] = [];
    const work = new WorkTracker();
    const closers = new Closers(silentLogger);
    closers.add(async () => void steps.push('store closed'));
    closers.add(async () => void steps.push('client closed'));
    let finish = () => {};
    void work.track(new Promise<void>((resolve) => (finish = resolve))).then(() => steps.push('work finished'));
    const close = shutdownInOrder({
      starters: [{ stop: () => steps.push('digests stopped') }, { stop: () => steps.push('watches stopped') }],
      work,
      app: { stop: async () => steps.push('app stopped') },
      closers,
      logger: silentLogger,
    });

    const closing = close();
    await Promise.resolve();
    // The work in flight holds the rest back until it ends.
    expect(steps).toEqual(['digests stopped', 'watches stopped']);
    expect(work.stopping.aborted).toBe(true);
    finish();
    await closing;
    expect(steps).toEqual([
      'digests stopped',
      'watches stopped',
      'work finished',
      'app stopped',
      'client closed',
      'store closed',
    ]);
  });

  it('shuts down once however often it is called, and an app that fails to stop does not stop the closers', async () => {
    let stops = 0;
    let closed = 0;
    const closers = new Closers(silentLogger);
    closers.add(async () => void closed++);
    const close = shutdownInOrder({
      starters: [{ stop: () => void stops++ }],
      work: new WorkTracker(),
      app: { stop: () => Promise.reject(new Error('already stopped')) },
      closers,
      logger: silentLogger,
    });

    const first = close({ drainMs: 10 });
    expect(close()).toBe(first);
    await first;
    await close();
    expect({ stops, closed }).toEqual({ stops: 1, closed: 1 });
  });
});
