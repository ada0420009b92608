import { context, header, mrkdwnSection, type SlackMessage } from './block-kit.js';

const EXAMPLE_EVENT = 'evt_3f2c1a9e-8b7d-4c6e-9f01-23456789abcd';
const EXAMPLE_PROMO = 'promo_9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d';

/** `/events help`: every command with an example. */
export function helpMessage(): SlackMessage {
  const lines = [
    '`/events` or `/events list`: upcoming events, soonest first (only you see them)',
    `\`/events show <eventId>\`: one event's card, e.g. \`/events show ${EXAMPLE_EVENT}\``,
    '`/events report <eventId>`: the event report (the report API allows 3 a minute; you see your place in the queue)',
    `\`/events promo <eventId> <promoId> <quantity>\`: set how many times a promo code can be redeemed, e.g. \`/events promo ${EXAMPLE_EVENT} ${EXAMPLE_PROMO} 250\` (promo editors only; asks first)`,
    '`/events digest on [HH:MM] [zone] [--days N] [--skip-empty]`: a daily digest of upcoming events in this channel, e.g. `/events digest on 08:30 Europe/Berlin --days 3` (default 09:00 in your Slack timezone, the next day)',
    "`/events digest off | status | now`: stop it, see its settings and next run, or post today's digest now",
    '`/events help`: this list',
  ];
  return {
    text: 'eventops commands: /events list, show, report, promo, digest, help',
    blocks: [
      header('eventops: /events commands'),
      mrkdwnSection(lines.join('\n')),
      context('Ids work with or without their prefix (`evt_`, `promo_`).'),
    ],
  };
}

/** A private message about input that could not be used, with the right form. */
export function usageMessage(problem: string, usage: string): SlackMessage {
  return {
    text: `${problem} Usage: ${usage}`,
    blocks: [
      mrkdwnSection(`:warning: ${problem}`),
      context(`Usage: \`${usage}\` · \`/events help\` lists every command`),
    ],
  };
}
