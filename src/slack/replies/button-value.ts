/** The text a clicked button (or picked option) carries as its `value`; empty when it carries none. */
export const buttonValue = (action: unknown): string =>
  typeof action === 'object' && action !== null && 'value' in action && typeof action.value === 'string'
    ? action.value
    : '';
