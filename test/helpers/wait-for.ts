/**
 * Waits for something to have happened rather than for a fixed time: resolves with the first value
 * of `check` that is neither undefined, null nor false, looking again every `intervalMs`, and
 * rejects after `timeoutMs` naming `what` it waited for. The interval only paces the looks; the
 * test goes on as soon as the condition holds.
 */
export async function waitFor<T>(
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  {
    what = 'the condition',
    timeoutMs = 10_000,
    intervalMs = 5,
  }: { what?: string; timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const found = await check();
    if (found !== undefined && found !== null && found !== false) return found;
    if (performance.now() > deadline) throw new Error(`Waited ${timeoutMs} ms for ${what} in vain`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * The one wall-clock wait of the tests, for those whose subject keeps time on a server (Redis's
 * `TIME`, a window of slots): everything else waits for a condition or moves a clock.
 */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Which of `promises` have resolved within `ms` of the call (true) and which not yet (false): a
 * look at what a budget or a queue has let go so far. One that rejects in that time rejects this.
 */
export function resolvedWithin(promises: Promise<unknown>[], ms: number): Promise<boolean[]> {
  const timeUp = sleep(ms).then(() => false);
  return Promise.all(promises.map((promise) => Promise.race([promise.then(() => true), timeUp])));
}
