import { describe, expect, it } from 'vitest';
import { dateToken, escapeText, md, mentionUser } from '../../src/render/mrkdwn.js';

describe('md', () => {
  it('escapes angle brackets in its own template text, as in `/events show <id or name>`', () => {
    expect(md`\`/events show <id or name>\``).toBe('`/events show &lt;id or name&gt;`');
  });

  it('leaves values, markup and entities written by hand as they are', () => {
    expect(md`*${escapeText('Rock & Roll')}* ${mentionUser('U0123456')} &lt;kept&gt; ${3}`).toBe(
      '*Rock &amp; Roll* <@U0123456> &lt;kept&gt; 3',
    );
  });
});

describe('dateToken', () => {
  it('sends the fallback alone when there is no time or format Slack could read', () => {
    expect(dateToken(Number.NaN, '{time}', '<soon>')).toBe('&lt;soon&gt;');
    expect(dateToken(0, '<>', 'epoch')).toBe('epoch');
    expect(dateToken(90_000, '{time}', 'then')).toBe('<!date^90^{time}|then>');
  });
});
