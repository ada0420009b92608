/**
 * Slack-shaped tokens for tests, built at run time so no token-like string is committed.
 * `kind` is the letter after `xox` (b: bot, p: user); they are plainly not real.
 */
export function fakeSlackToken(kind: 'b' | 'p', label: string): string {
  return ['xox', kind, '-', 'fake-', label].join('');
}
