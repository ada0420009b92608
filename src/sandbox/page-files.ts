import { readFile } from 'node:fs/promises';

const PAGE = new URL('./page/', import.meta.url);
const JS = 'text/javascript; charset=utf-8';

/** The page's files by path: nothing else in the folder is served. */
const FILES: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
  '/app.js': { file: 'app.js', type: JS },
  '/mrkdwn.js': { file: 'mrkdwn.js', type: JS },
  '/emoji.js': { file: 'emoji.js', type: JS },
  '/escape-html.js': { file: 'escape-html.js', type: JS },
};

/** Where index.html holds the token the page sends with every action. */
const TOKEN_SLOT = '{{sandbox-token}}';

/**
 * One file of the page, or `undefined` for any other path. The HTML carries this start's token:
 * only a page served from the sandbox's own address can read it.
 */
export async function readPageFile(path: string, token: string): Promise<{ type: string; body: string } | undefined> {
  const entry = FILES[path];
  if (!entry) return undefined;
  const body = await readFile(new URL(entry.file, PAGE), 'utf8');
  return { type: entry.type, body: entry.file === 'index.html' ? body.replace(TOKEN_SLOT, token) : body };
}
