import { type Shown, showFigures } from '../../src/figures/may-show-figures.js';

/**
 * Figures as the figures rule lets them through to a member of the organization in one of its own
 * conversations: what render tests hand the functions that print figures.
 */
export function shown<T>(figures: T): Shown<T> {
  const gate = showFigures(figures, { room: { kind: 'internal' }, person: { kind: 'member' } });
  if (!('shown' in gate)) throw new Error('the rule held back figures for a member in an internal conversation');
  return gate.shown;
}
