import { escapeHtml } from './escape-html.js';
import { ui } from './ui.js';

/** Where the page finds a file a message carries, by id. */
function fileById(id) {
  for (const message of ui.state?.messages ?? []) {
    const file = (message.files ?? []).find((each) => each.id === id);
    if (file) return file;
  }
  return undefined;
}

/** A file opens as in Slack: its content in a viewer over the page, with a download. */
export function openFile(id) {
  const file = fileById(id);
  if (!file) return;
  document.querySelector('#file-viewer')?.remove();
  const viewer = document.createElement('div');
  viewer.id = 'file-viewer';
  viewer.dataset.testid = 'file-viewer';
  const href = URL.createObjectURL(new Blob([file.content], { type: 'application/octet-stream' }));
  viewer.innerHTML = `<div class="modal file-modal"><h2>${escapeHtml(file.title)}</h2>
    <div class="content"><div class="meta">${escapeHtml(file.name)} · ${file.content.length} bytes</div><pre>${escapeHtml(file.content)}</pre></div>
    <footer><a class="download" href="${href}" download="${escapeHtml(file.name)}">Download</a><button type="button" data-close-file>Close</button></footer></div>`;
  document.body.append(viewer);
}
