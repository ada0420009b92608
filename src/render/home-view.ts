import type { types } from '@slack/bolt';
import type { RecentActivity } from '../store/activity-store.js';
import type { BudgetSnapshot } from '../ticketing/budget.js';
import type { TicketingEvent } from '../ticketing/schemas.js';
import { type Block, capBlocks, context, divider, header, LIMITS, mrkdwnSection } from './block-kit.js';
import { safeText } from './escape.js';
import { eventSection } from './event-blocks.js';

export interface HomeViewInput {
  events: TicketingEvent[] | { error: string };
  activity: RecentActivity;
  budget: BudgetSnapshot;
  now: number;
}

function budgetLine(budget: BudgetSnapshot, now: number): string {
  const seen = budget.lastObservation;
  if (!seen) return 'No response from the ticketing API yet.';
  const resetIn = Math.max(0, Math.ceil((seen.resetAt - now) / 1000));
  const paused = budget.pausedUntil ? ` Paused by a 429 for ${Math.ceil((budget.pausedUntil - now) / 1000)} s.` : '';
  return `${seen.remaining} of ${seen.limit} requests left in this window (resets in ${resetIn} s); ${budget.queued.interactive + budget.queued.background} waiting.${paused}`;
}

/** The App Home tab: next events, the user's recent activity and the organization's budget. */
export function homeView(input: HomeViewInput): types.HomeView {
  const blocks: Block[] = [header('Upcoming events')];
  if ('error' in input.events) blocks.push(mrkdwnSection(`:warning: ${safeText(input.events.error, 500)}`));
  else if (input.events.length === 0) blocks.push(mrkdwnSection('No upcoming events.'));
  else for (const event of input.events.slice(0, 5)) blocks.push(...eventSection(event));

  blocks.push(divider(), header('Your recent reports'));
  const reports = input.activity.reports.slice(0, 5);
  blocks.push(
    mrkdwnSection(
      reports.length === 0
        ? 'None yet: try `/events report <eventId>`.'
        : reports
            .map(
              (r) =>
                `• ${safeText(r.eventName ?? r.eventId, 150)} · ${safeText(r.at.slice(0, 16).replace('T', ' '), 20)} UTC`,
            )
            .join('\n'),
    ),
  );
  blocks.push(header('Your recent promo changes'));
  const changes = input.activity.promoChanges.slice(0, 5);
  blocks.push(
    mrkdwnSection(
      changes.length === 0
        ? 'None yet.'
        : changes
            .map(
              (c) =>
                `• \`${safeText(c.promoId, 100)}\` → ${c.quantity} · ${c.outcome === 'updated' ? 'done' : `failed: ${safeText(c.error ?? '', 200)}`} · ${safeText(c.at.slice(0, 16).replace('T', ' '), 20)} UTC`,
            )
            .join('\n'),
    ),
  );
  blocks.push(divider(), context(`:bar_chart: Ticketing API budget: ${budgetLine(input.budget, input.now)}`));
  return { type: 'home', blocks: capBlocks(blocks, LIMITS.surfaceBlocks, (n) => `...and ${n} more`) };
}
