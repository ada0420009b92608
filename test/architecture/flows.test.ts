/**
 * Issue 34: a report and a watch check can each be followed through at most 15 files, named in
 * order in docs/architecture.md. `npm run trace` (scripts/trace-flows.ts) runs both flows on the
 * real bot in a process of its own (V8's coverage on) and fails when a step the docs name was not
 * entered; this runs it, so the docs cannot drift from the code unseen.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { followOutput } from '../helpers/script-process.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

it('follows each documented flow through at most 15 files, every one of them entered', async () => {
  const run = followOutput(
    spawn(process.execPath, ['--import', 'tsx', 'scripts/trace-flows.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: process.env.TMPDIR },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  const code = await run.exited;
  const { stdout, stderr } = run.output();
  expect(stdout.match(/^ {2}NOT ENTERED .*/gm) ?? [], stderr).toEqual([]);
  expect(code, stderr).toBe(0);
  for (const flow of ['A.', 'B.']) {
    const named = new RegExp(`^${flow.replace('.', '\\.')} (\\d+) files named`, 'm').exec(stdout);
    expect(named, stdout).not.toBeNull();
    const count = Number(named?.[1]);
    expect(count).toBeGreaterThanOrEqual(10);
    expect(count).toBeLessThanOrEqual(15);
  }
}, 120_000);
