// The emoji the bot's messages use, by Slack shortcode: the `:name:` codes in src/render and
// src/slack (test/sandbox/emoji.test.ts checks that each one is here). A Map, not an object, so a
// code such as `:constructor:` finds nothing instead of Object.prototype's members.
const EMOJI = new Map([
  ['bar_chart', '📊'],
  ['calendar', '📅'],
  ['chart_with_upwards_trend', '📈'],
  ['checkered_flag', '🏁'],
  ['clock3', '🕒'],
  ['dart', '🎯'],
  ['double_vertical_bar', '⏸️'],
  ['eyes', '👀'],
  ['grey_question', '❔'],
  ['hourglass', '⌛'],
  ['hourglass_flowing_sand', '⏳'],
  ['lock', '🔒'],
  ['information_source', 'ℹ️'],
  ['mag', '🔍'],
  ['no_bell', '🔕'],
  ['no_entry', '⛔'],
  ['pencil2', '✏️'],
  ['rotating_light', '🚨'],
  ['round_pushpin', '📍'],
  ['tada', '🎉'],
  ['ticket', '🎟️'],
  ['warning', '⚠️'],
  ['wave', '👋'],
  ['white_check_mark', '✅'],
  ['zzz', '💤'],
  ['crystal_ball', '🔮'],
  ['snail', '🐌'],
  ['key', '🔑'],
  ['arrows_counterclockwise', '🔄'],
  ['turtle', '🐢'],
  ['chart_with_downwards_trend', '📉'],
]);

/** The emoji a shortcode names, or `undefined` for one the page does not know (shown as typed). */
export const emojiFor = (name) => EMOJI.get(name);
