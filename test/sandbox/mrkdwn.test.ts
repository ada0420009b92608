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

  it("styles with Slack's rules: markers at word boundaries around text that does not start or end with a space", () => {
    expect(render('*bold* _italic_ ~strike~')).toBe('<b>bold</b> <i>italic</i> <s>strike</s>');
    // Inside a word, or with a space just inside a marker: no style, the markers as typed.
    expect(render('snake_case_name a*b*c 2*3*4')).toBe('snake_case_name a*b*c 2*3*4');
    expect(render('* not bold * and _ not italic _')).toBe('* not bold * and _ not italic _');
    expect(render('~100 to ~200 seats')).toBe('~100 to ~200 seats');
    // Punctuation may stand beside a marker.
    expect(render('(*bold*), "_quoted_"!')).toBe('(<b>bold</b>), &quot;<i>quoted</i>&quot;!');
  });

  it('nests styles on one line, never across lines', () => {
    expect(render('*bold _and italic_*')).toBe('<b>bold <i>and italic</i></b>');
    expect(render('_*both*_ ~*struck bold*~')).toBe('<i><b>both</b></i> <s><b>struck bold</b></s>');
    expect(render('*one\nline*')).toBe('*one<br>line*');
    expect(render('*a* b *c\nd*')).toBe('<b>a</b> b *c<br>d*');
  });

  it('leaves code spans and <...> tokens untouched by styles', () => {
    expect(render('`*not bold*` *bold*')).toBe('<code>*not bold*</code> <b>bold</b>');
    expect(render('<https://example.com/a_b_c|x_y_z> *<@UEDITOR01>*')).toBe(
      '<a href="https://example.com/a_b_c" target="_blank" rel="noreferrer">x_y_z</a> <b><span class="mention">@Ada</span></b>',
    );
    expect(render('sold &gt;= 90% *now*')).toBe('sold &gt;= 90% <b>now</b>');
  });
});
