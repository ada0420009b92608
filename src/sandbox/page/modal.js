import { blocksHtml, plainOf } from './blocks.js';
import { readValues, restoreValues } from './form-values.js';
import { $, ui } from './ui.js';

const enteredUnder = new Map();

export function renderModal() {
  // The top of the modal's stack: a pushed view comes after the view under it.
  const modal = ui.state.views.findLast((v) => v.kind === 'modal');
  const overlay = $('#overlay');
  if (!modal) {
    overlay.hidden = true;
    overlay.innerHTML = '';
    overlay.dataset.view = '';
    return;
  }
  // Keep what the person typed while the state refreshes under an open modal; redraw it when the
  // bot updated the view (a new hash) or answered with errors.
  if (
    overlay.dataset.view === modal.id &&
    overlay.dataset.hash === modal.hash &&
    overlay.dataset.errors === JSON.stringify(modal.errors ?? {})
  )
    return;
  // Slack keeps what was entered in an input whose block and action ids the updated view keeps,
  // and in a view under a pushed one, shown again as it was left when the pushed one closes.
  if (overlay.dataset.view && overlay.dataset.view !== modal.id)
    enteredUnder.set(overlay.dataset.view, readValues(overlay));
  const typed = overlay.dataset.view === modal.id ? readValues(overlay) : (enteredUnder.get(modal.id) ?? {});
  overlay.dataset.view = modal.id;
  overlay.dataset.hash = modal.hash;
  overlay.dataset.errors = JSON.stringify(modal.errors ?? {});
  overlay.hidden = false;
  const view = modal.view;
  overlay.innerHTML = `<div class="modal" data-testid="modal" data-view="${modal.id}">
    <h2>${plainOf(view.title)}</h2>
    <div class="content">${blocksHtml(view.blocks ?? [], { viewId: modal.id, errors: modal.errors })}</div>
    <footer><button data-close="${modal.id}">${plainOf(view.close, 'Cancel')}</button>
    ${view.submit ? `<button class="primary" data-submit="${modal.id}">${plainOf(view.submit)}</button>` : ''}</footer></div>`;
  restoreValues(overlay, typed);
}
