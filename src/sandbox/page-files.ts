import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { CHANGE_PROMO_SHORTCUT } from '../render/modal-views.js';
import { SHOW_EVENT_SHORTCUT } from '../slack/listeners/shortcuts/show-event-shortcut.js';

const PAGE = new URL('./page/', import.meta.url);
const JS = 'text/javascript; charset=utf-8';

/** The page's files by path: nothing else in the folder is served. */
const FILES: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
  '/overlays.css': { file: 'overlays.css', type: 'text/css; charset=utf-8' },
  '/forms.css': { file: 'forms.css', type: 'text/css; charset=utf-8' },
  '/app.js': { file: 'app.js', type: JS },
  '/mrkdwn.js': { file: 'mrkdwn.js', type: JS },
  '/emoji.js': { file: 'emoji.js', type: JS },
  '/escape-html.js': { file: 'escape-html.js', type: JS },
  '/charts.js': { file: 'charts.js', type: JS },
  '/table.js': { file: 'table.js', type: JS },
  '/work-objects.js': { file: 'work-objects.js', type: JS },
  '/stream.js': { file: 'stream.js', type: JS },
  '/ui.js': { file: 'ui.js', type: JS },
  '/sandbox-calls.js': { file: 'sandbox-calls.js', type: JS },
  '/blocks.js': { file: 'blocks.js', type: JS },
  '/message-html.js': { file: 'message-html.js', type: JS },
  '/render.js': { file: 'render.js', type: JS },
  '/modal.js': { file: 'modal.js', type: JS },
  '/form-values.js': { file: 'form-values.js', type: JS },
  '/actions.js': { file: 'actions.js', type: JS },
  '/file-viewer.js': { file: 'file-viewer.js', type: JS },
  '/more-actions.js': { file: 'more-actions.js', type: JS },
};

/** Where the page loads Chart.js from: the sandbox itself, never a CDN (the page needs no network). */
export const CHART_JS_PATH = '/vendor/chart.umd.js';

/**
 * Chart.js's browser build (UMD: it sets `window.Chart`), from the installed `chart.js` package.
 * Its package exports no path to it, so it is found beside the package's main file.
 */
function chartJsFile(): URL {
  const main = createRequire(import.meta.url).resolve('chart.js');
  return new URL('chart.umd.js', pathToFileURL(main));
}

/** Where index.html holds the token the page sends with every action. */
const TOKEN_SLOT = '{{sandbox-token}}';
/** Where index.html holds the shortcut's callback id, so the page keeps no copy of the bot's. */
const SHORTCUT_SLOT = '{{promo-shortcut}}';
/** Where index.html holds the app's message shortcuts (a message's More actions menu). */
const MESSAGE_SHORTCUTS_SLOT = '{{message-shortcuts}}';

/** Where index.html holds the URL of the bot's MCP server (empty when it is off). */
const MCP_URL_SLOT = '{{mcp-url}}';

/** Text as the value of a double-quoted HTML attribute. */
const attribute = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/** The app's message shortcuts, named as manifest.yml names them. */
export const MESSAGE_SHORTCUTS = [{ callbackId: SHOW_EVENT_SHORTCUT, name: 'Show event' }];

/**
 * One file of the page, or `undefined` for any other path. The HTML carries this start's token
 * (only a page served from the sandbox's own address can read it), the bot's shortcut
 * callback id, so the page keeps no copy of it, and where agents reach the bot's MCP server.
 */
export async function readPageFile(
  path: string,
  token: string,
  bot: { mcpUrl?: string | undefined } = {},
): Promise<{ type: string; body: string } | undefined> {
  if (path === CHART_JS_PATH) return { type: JS, body: await readFile(chartJsFile(), 'utf8') };
  const entry = FILES[path];
  if (!entry) return undefined;
  const body = await readFile(new URL(entry.file, PAGE), 'utf8');
  if (entry.file !== 'index.html') return { type: entry.type, body };
  return {
    type: entry.type,
    body: body
      .replace(TOKEN_SLOT, token)
      .replace(SHORTCUT_SLOT, CHANGE_PROMO_SHORTCUT)
      .replace(MESSAGE_SHORTCUTS_SLOT, attribute(JSON.stringify(MESSAGE_SHORTCUTS)))
      .replace(MCP_URL_SLOT, attribute(bot.mcpUrl ?? '')),
  };
}
