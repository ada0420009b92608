import { $, ui } from './ui.js';

/**
 * The sandbox's token, written into the page at each start: every request to it carries it. A
 * restart makes up a new one, so a tab opened before it reads the page again for it (same origin
 * only, as the page itself was read).
 */
let token = document.querySelector('meta[name="sandbox-token"]').content;

/** The token in the page as the sandbox serves it now; whether it is a new one. */
async function renewToken() {
  const response = await fetch('/', { cache: 'no-store' });
  if (!response.ok) return false;
  const page = new DOMParser().parseFromString(await response.text(), 'text/html');
  const fresh = page.querySelector('meta[name="sandbox-token"]')?.content;
  if (!fresh || fresh === token) return false;
  token = fresh;
  // A new start holds none of what the page shows: draw what it has.
  ui.version = -1;
  return true;
}

/** A request with the token; refused for its token (403), once more with the token the sandbox has now. */
export async function send(path, init = {}) {
  const attempt = () => fetch(path, { ...init, headers: { ...init.headers, 'x-sandbox-token': token } });
  const response = await attempt();
  if (response.status === 403 && (await renewToken())) return attempt();
  return response;
}

/** What the page tells the person about the sandbox itself (not running, refused), by what it is about. */
export const notices = new Map();
export function notice(kind, text) {
  if (text) notices.set(kind, text);
  else notices.delete(kind);
  const shown = [...notices.values()].at(-1);
  const box = $('#notice');
  box.hidden = !shown;
  box.textContent = shown ?? '';
}

export const NOT_RUNNING =
  'The sandbox is not running (stopped or restarting?): start it with `npm start`; this tab carries on once it is back.';

/** A page action; `{ ok: false }` when it did not reach the bot, and the page says why. */
export async function call(path, body) {
  let response;
  try {
    response = await send(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: ui.user, ...body }),
    });
  } catch {
    notice('action', NOT_RUNNING);
    return { ok: false, error: 'not_running' };
  }
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) {
    notice(
      'action',
      response.status === 403
        ? 'The sandbox refused this tab: reload the page.'
        : `The sandbox could not do that (${answer.error ?? response.status}).`,
    );
    return { ok: false, ...answer };
  }
  notice('action', undefined);
  return answer;
}
