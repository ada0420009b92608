import { describe, expect, it } from 'vitest';
import { pageModule } from './page-module.js';

interface Reader {
  users: { id: string; name: string }[];
  channels: { id: string; name: string }[];
  tz: string;
}
const { mrkdwn } = await pageModule<{ mrkdwn(text: string, reader: Reader): string }>('mrkdwn.js');

const reader: Reader = {
  users: [{ id: 'UEDITOR01', name: 'Ada' }],
  channels: [{ id: 'CGENERAL01', name: 'general' }],
  tz: 'America/New_York',
};
const render = (text: string) => mrkdwn(text, reader);

describe('the sandbox page mrkdwn', () => {
  it('renders the tokens Slack knows: mentions, channels, broadcasts, dates in the reader zone, links', () => {
    expect(render('<@UEDITOR01> in <#CGENERAL01>')).toBe(
      '<span class="mention">@Ada</span> in <span class="mention">#general</span>',
    );
    expect(render('<!here>')).toBe('<span class="mention">@here</span>');
    // 2026-06-01T00:30Z is still May 31 in New York.
    expect(render('<!date^1780273800^{date} at {time}|fallback>')).toBe(
      '<span class="date" title="fallback">May 31, 2026 at 8:30 PM</span>',
    );
    expect(render('<https://example.com/?a=1&amp;b=2|the &lt;b&gt; page>')).toBe(
      '<a href="https://example.com/?a=1&amp;b=2" target="_blank" rel="noreferrer">the &lt;b&gt; page</a>',
    );
  });

  it('shows a malformed token as the text it is', () => {
    expect(render('<!date^x>')).toBe('&lt;!date^x&gt;');
    expect(render('<@>')).toBe('&lt;@&gt;');
    expect(render('<!date^notanumber^{date}|>')).toBe('&lt;!date^notanumber^{date}|&gt;');
    expect(render('<!date^99999999999999^{date}|late>')).toBe('&lt;!date^99999999999999^{date}|late&gt;');
    expect(render('<javascript:alert(1)|click>')).toBe('&lt;javascript:alert(1)|click&gt;');
  });

  it('shows the emoji of a known shortcode, the shortcode itself otherwise, and none inside code', () => {
    expect(render(':calendar: soon')).toBe('<span class="emoji" title=":calendar:">📅</span> soon');
    expect(render(':no_such_code: :constructor: :__proto__:')).toBe(':no_such_code: :constructor: :__proto__:');
    expect(render('`:calendar:` and *:warning: bold*')).toBe(
      '<code>:calendar:</code> and <b><span class="emoji" title=":warning:">⚠️</span> bold</b>',
    );
  });

  it('takes the placeholder characters it uses inside out of the text, so a message cannot forge one', () => {
    expect(render('\uE0000\uE000 <@UEDITOR01>')).toBe('0 <span class="mention">@Ada</span>');
  });
});
