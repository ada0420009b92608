// A streamed message (chat.startStream / appendStream / stopStream) as Slack draws it in plan
// mode: the plan's title, then each task once, at its latest status and details. Its final blocks
// are drawn by the page as any message's.
import { decodeEntities, escapeHtml } from './escape-html.js';

const MARKS = { pending: '○', in_progress: '◌', complete: '✓', error: '⚠' };

/** The plan's title and each task's latest state, in the order the tasks first came. */
function planOf(chunks) {
  let title = '';
  const tasks = new Map();
  for (const chunk of chunks) {
    if (chunk?.type === 'plan_update') title = String(chunk.title ?? '');
    else if (chunk?.type === 'task_update') {
      const before = tasks.get(chunk.id) ?? {};
      // A later update without details keeps none: the step's words are those of its latest status.
      tasks.set(chunk.id, {
        ...before,
        title: chunk.title ?? before.title,
        status: chunk.status,
        details: chunk.details,
      });
    }
  }
  return { title, tasks: [...tasks.entries()] };
}

/** Slack's text (its three entities) as the page's text: decoded, then escaped for HTML. */
const text = (value) => escapeHtml(decodeEntities(value ?? ''));

/** The HTML of a message's stream, with `streaming` while more may come. */
export function streamHtml(stream) {
  const { title, tasks } = planOf(stream.chunks ?? []);
  const rows = tasks
    .map(
      ([id, task]) =>
        `<li class="stream-task ${escapeHtml(task.status ?? '')}" data-testid="stream-task" data-task="${escapeHtml(id)}" data-status="${escapeHtml(task.status ?? '')}"><span class="mark">${MARKS[task.status] ?? '·'}</span> ${text(task.title)}${task.details ? ` <span class="meta">${text(task.details)}</span>` : ''}</li>`,
    )
    .join('');
  return `<div class="stream" data-testid="stream" data-streaming="${stream.streaming ? 'yes' : 'no'}"><div class="stream-title">${text(title)}${stream.streaming ? ' <span class="meta">streaming…</span>' : ''}</div><ul>${rows}</ul></div>`;
}
