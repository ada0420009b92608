import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import type { Logger } from '../logger.js';
import type { SandboxMessage, SandboxState } from './sandbox-state.js';

/** Most messages kept across restarts (the newest): a sandbox left running for weeks keeps a small file. */
export const MAX_KEPT_MESSAGES = 5_000;

/** How long changes gather before the file is written (a streamed report changes many times a second). */
const WRITE_AFTER_MS = 200;

/**
 * Where the sandbox keeps its messages for a store: beside its SQLite file, under the same name
 * (`data/sandbox.sqlite` → `data/sandbox.messages.json`), so they live and go with it; none for a
 * store in memory.
 */
export function keptMessagesPath(storeUrl: string, cwd: string): string | undefined {
  const location = /^sqlite:\/\/(.+)$/i.exec(storeUrl)?.[1];
  if (!location || location === ':memory:') return undefined;
  const path = resolve(cwd, location);
  return join(dirname(path), `${basename(path, extname(path))}.messages.json`);
}

/** A message as read back from the file: outside input, so only what has the shape of one. */
const isMessage = (value: unknown): value is SandboxMessage =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as SandboxMessage).ts === 'string' &&
  typeof (value as SandboxMessage).channel === 'string' &&
  typeof (value as SandboxMessage).author === 'string' &&
  typeof (value as SandboxMessage).text === 'string' &&
  Array.isArray((value as SandboxMessage).blocks);

/**
 * Keeps the sandbox's messages in `path` across restarts: read back at start (a file that cannot
 * be read is set aside, named in the log, and the sandbox starts empty), written shortly after
 * every change (one write at a time, to a temporary file renamed over the last, so a crash leaves
 * the previous whole file). `flush` writes what is pending, at close.
 */
export async function keepMessages(
  state: SandboxState,
  path: string,
  logger: Logger,
): Promise<{ flush(): Promise<void> }> {
  await mkdir(dirname(path), { recursive: true });
  let text: string | undefined;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (text !== undefined) {
    let kept: unknown;
    try {
      kept = JSON.parse(text);
    } catch {
      kept = undefined;
    }
    if (Array.isArray(kept)) state.restore(kept.filter(isMessage));
    else {
      const aside = `${path}.unreadable`;
      await rename(path, aside);
      logger.warn(`The sandbox's kept messages could not be read; set aside as ${aside}, starting empty`);
    }
  }

  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> | undefined;
  let dirty = false;
  const write = async (): Promise<void> => {
    dirty = false;
    const temporary = `${path}.${process.pid}.tmp`;
    await writeFile(temporary, JSON.stringify(state.messages.slice(-MAX_KEPT_MESSAGES)));
    await rename(temporary, path);
  };
  const save = (): Promise<void> => {
    timer = undefined;
    writing ??= (async () => {
      try {
        do await write();
        while (dirty);
      } catch (error) {
        logger.warn("The sandbox's messages could not be kept", { error });
      } finally {
        writing = undefined;
      }
    })();
    return writing;
  };
  state.onChange(() => {
    dirty = true;
    if (writing || timer) return;
    timer = setTimeout(save, WRITE_AFTER_MS);
    timer.unref();
  });
  return {
    async flush() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      await writing;
      if (dirty) await save();
    },
  };
}
