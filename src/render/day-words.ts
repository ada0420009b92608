import { parsePlainDate } from '../time/zoned.js';

/*
 * A calendar date (`YYYY-MM-DD`) in words, as every other date a person reads: never shifted by a
 * zone (it is a day, not an instant), and text that is no such date is given back as it came.
 */

const longDay = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', weekday: 'long', day: 'numeric', month: 'long' });
const shortDay = new Intl.DateTimeFormat('en-US', {
  timeZone: 'UTC',
  weekday: 'short',
  month: 'short',
  day: 'numeric',
});

function inWords(text: string, format: Intl.DateTimeFormat): string {
  const date = parsePlainDate(text);
  return date ? format.format(Date.UTC(date.year, date.month - 1, date.day, 12)) : text;
}

/** `Saturday 28 November`: a digest's day, in its header and its notification. */
export const longDayWords = (text: string): string => inWords(text, longDay);

/** `Sat, Nov 28`: short enough for a table's label or a sentence's aside ("First one: Sat, Nov 28"). */
export const shortDayWords = (text: string): string => inWords(text, shortDay);
