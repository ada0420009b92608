import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { builtScript } from './built-sources.js';
import { EXIT_WITH_PARENT } from './exit-with-parent.js';
import { waitFor } from './wait-for.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ScriptProcess {
  child: ChildProcess;
  exited: Promise<number | null>;
  output(): { stdout: string; stderr: string };
  /** The first match of `pattern` in what it printed (stdout, then stderr); fails once it has exited without. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
}

/** What `child` (its stdout and stderr piped) prints, kept as it comes, and a wait for a match in it. */
export function followOutput(child: ChildProcess): ScriptProcess {
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    exited,
    output: () => ({ stdout, stderr }),
    waitFor: (pattern, timeoutMs = 30_000) =>
      waitFor(
        () => {
          const match = pattern.exec(stdout) ?? pattern.exec(stderr);
          if (!match && child.exitCode !== null) throw new Error(`exited (${child.exitCode})`);
          return match;
        },
        { what: String(pattern), timeoutMs, intervalMs: 50 },
      ).catch((error: unknown) => {
        throw new Error(`no ${pattern} in:\n${stdout}\n${stderr}`, { cause: error });
      }),
  };
}

/**
 * A script of this repository (`src/main.ts`, `src/simulator/cli.ts`), built, run as `npm start` or
 * `npm run simulator` runs it, with exactly `env` (nothing of this process's own but PATH and
 * HOME), ending with the test process. `nodeArgs` go to node before the rest (an `--import` of the
 * test's own).
 */
export async function startScript(
  script: string,
  env: Record<string, string>,
  { nodeArgs = [] }: { nodeArgs?: string[] } = {},
): Promise<ScriptProcess> {
  const child = spawn(
    process.execPath,
    ['--enable-source-maps', ...nodeArgs, '--import', EXIT_WITH_PARENT, await builtScript(script)],
    {
      cwd: ROOT,
      // A sandbox started here keeps nothing: parallel suites must not share ./data/sandbox.sqlite.
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SANDBOX_STORE: 'memory', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  return followOutput(child);
}
