import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, version as esbuildVersion } from 'esbuild';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SRC = join(ROOT, 'src');
/**
 * Inside node_modules: ignored by git and the linter, and packages resolve from it as from `dist/`.
 * It has its own package.json saying "module" (Node stops looking for one at node_modules).
 */
const CACHE = join(ROOT, 'node_modules', '.cache', 'eventops-built-sources');
/** Builds of other sources, left by earlier runs, are removed once this old. */
const STALE_MS = 60 * 60 * 1000;

const tsFiles = (): string[] =>
  readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => file.split(sep).join('/'))
    .sort();

/**
 * What the build is of: every source file's path and content, and what turns them into JavaScript
 * (this file, the compiler options, esbuild's version). The checkout's path is in it too: the build
 * links back to the page it serves.
 */
function sourcesHash(files: string[]): string {
  const hash = createHash('sha256')
    .update(`${ROOT}\0${esbuildVersion}\0`)
    .update(readFileSync(fileURLToPath(import.meta.url)))
    .update(readFileSync(join(ROOT, 'tsconfig.json')));
  for (const file of files)
    hash
      .update(file)
      .update('\0')
      .update(readFileSync(join(SRC, file)))
      .update('\0');
  return hash.digest('hex').slice(0, 16);
}

async function buildInto(folder: string, files: string[]): Promise<void> {
  // One JavaScript file per source file, as `tsc -p tsconfig.build.json` writes `dist/` (the sources
  // are isolated modules with type-only imports marked, so dropping the types is the whole change).
  await build({
    entryPoints: files.map((file) => join(SRC, file)),
    outdir: folder,
    outbase: SRC,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'inline',
    logLevel: 'error',
  });
  writeFileSync(join(folder, 'package.json'), '{ "type": "module" }\n');
  // The sandbox serves its page from next to its module, as `npm run build` copies it.
  symlinkSync(join(SRC, 'sandbox', 'page'), join(folder, 'sandbox', 'page'), 'dir');
}

let built: Promise<string> | undefined;

/**
 * The bot's sources as JavaScript, for the processes tests and benchmarks start as `npm start`
 * starts the built bot: plain Node, without a TypeScript loader in every process (that loader cost
 * each start a second of CPU). Built once for the sources as they are (a build of the same sources is
 * reused, by any process), in a fifth of a second; the folder it returns holds `main.js` and the rest.
 */
export function builtSources(): Promise<string> {
  built ??= (async () => {
    const files = tsFiles();
    const folder = join(CACHE, sourcesHash(files));
    if (existsSync(join(folder, 'package.json'))) {
      try {
        // In use: the pruning below (in a later run's process) goes by the folder's age.
        const now = new Date();
        utimesSync(folder, now, now);
        return folder;
      } catch {
        // Pruned under us: built again below.
      }
    }
    mkdirSync(CACHE, { recursive: true });
    const scratch = `${folder}.${process.pid}.${Date.now()}`;
    try {
      await buildInto(scratch, files);
      renameSync(scratch, folder);
    } catch (error) {
      rmSync(scratch, { recursive: true, force: true });
      // Another process built the same sources at the same moment: theirs is as good.
      if (!existsSync(join(folder, 'package.json'))) throw error;
    }
    for (const other of readdirSync(CACHE)) {
      const path = join(CACHE, other);
      try {
        if (path !== folder && Date.now() - statSync(path).mtimeMs > STALE_MS)
          rmSync(path, { recursive: true, force: true });
      } catch {
        // Another process removed it first (or is building into it): nothing to do.
      }
    }
    return folder;
  })();
  // A failed build is not kept: the next caller tries again.
  built.catch(() => {
    built = undefined;
  });
  return built;
}

/** Where the build of `script` (a path under `src/` such as `src/main.ts`) is. */
export async function builtScript(script: string): Promise<string> {
  const path = relative(SRC, join(ROOT, script));
  if (path.startsWith('..') || !path.endsWith('.ts')) throw new Error(`${script} is not a source file under src/`);
  return join(await builtSources(), path.replace(/\.ts$/, '.js'));
}
