import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { builtScript } from './built-sources.js';
import { EXIT_WITH_PARENT } from './exit-with-parent.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ScriptProcess {
  child: ChildProcess;
  exited: Promise<number | null>;
  output(): { stdout: string; stderr: string };
  /** The first match of `pattern` in what it printed (stdout, then stderr); fails once it has exited without. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
}

/**
 * A script of this repository (`src/main.ts`, `src/simulator/cli.ts`), built, run as `npm start` or
 * `npm run simulator` runs it, with exactly `env` (nothing of this process's own but PATH and
 * HOME), ending with the test process.
 */
export async function startScript(script: string, env: Record<string, string>): Promise<ScriptProcess> {
  const child = spawn(
    process.execPath,
    ['--enable-source-maps', '--import', EXIT_WITH_PARENT, await builtScript(script)],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
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
    async waitFor(pattern, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = pattern.exec(stdout) ?? pattern.exec(stderr);
        if (match) return match;
        if (Date.now() > deadline || child.exitCode !== null) {
          throw new Error(`no ${pattern} in:\n${stdout}\n${stderr}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}
