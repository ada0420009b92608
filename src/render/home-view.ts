import type { types } from '@slack/bolt';
import type { Shown, Withheld } from '../figures/may-show-figures.js';
import type { Comparables } from '../forecast/comparables.js';
import type { TrackRecord } from '../forecast/track-record.js';
import type { PromoChangeRecord, RecentActivity } from '../store/activity-store.js';
import type { BudgetSnapshot } from '../ticketing/budget.js';
import type { TicketingEvent } from '../ticketing/schemas.js';
import type { Watch } from '../watches/watch.js';
import { type Block, capBlocks, context, divider, header, LIMITS, mrkdwnSection, warning } from './block-kit.js';
import { comparablesWords } from './comparables-words.js';
import { type PersonalDigestHomeInput, personalDigestHomeBlocks } from './digest-blocks.js';
import { eventSection } from './event-blocks.js';
import { type McpTokenListing, mcpTokenHomeBlocks } from './mcp-token-blocks.js';
import { channelLink, clip, code, joinMrkdwn, type Mrkdwn, md, readerIsoInstant } from './mrkdwn.js';
import { forecastAccuracyLine } from './track-record-blocks.js';
import { withheldWords } from './withheld-words.js';

export interface HomeViewInput {
  /** The next events, or the user-facing sentence saying why they could not be read. */
  events: TicketingEvent[] | { error: Mrkdwn };
  activity: RecentActivity;
  budget: BudgetSnapshot;
  now: number;
  /** Watches the person set up or added to, where they are and what they listen for. */
  watches?: readonly Watch[] | undefined;
  /** The person's own daily digest (in their DM); the section is left out when it could not be read. */
  personalDigest?: PersonalDigestHomeInput | undefined;
  /**
   * The tab's figures through the figures rule: the promo changes' quantities and the sales
   * forecast's track record (left out when not read). Absent: neither is shown.
   */
  figures?: Shown<HomeFigures> | undefined;
  /** Why the figures were held back (a guest, someone of another organization), said on the tab. */
  withheld?: Withheld | undefined;
  /** Promo editors only: why "Set promo quantity" could not be restricted to them in Workflow Builder. */
  promoStepRestriction?: PromoStepRestriction | undefined;
  /** The person's MCP token, listed (absent: the MCP server is off, and the section is left out). */
  mcpToken?: { listing: McpTokenListing | undefined } | undefined;
}

/** What the home tab shows that is a figure, besides the promo changes' quantities. */
export interface HomeFigures {
  forecastAccuracy?: TrackRecord | undefined;
  /** Where each upcoming event shown stands against similar finished events, by event id. */
  standing?: ReadonlyMap<string, Comparables> | undefined;
}

/** Why Slack did not take "Set promo quantity"'s restriction to the promo editors. */
export interface PromoStepRestriction {
  /** Slack's error code (`not_allowed`, `invalid_auth`, ...), or the transport's when Slack was not reached. */
  error: string;
  /** False when no answer came from Slack (a network failure, a timeout, an HTTP error). */
  reached: boolean;
  /** How often eventops tries again. */
  retryEveryMs: number;
}

const TOKEN_FIX = md`check SLACK_BOT_TOKEN (reinstall the app if it was revoked)`;
/** What an admin can do about a refusal, by Slack's error code. */
const MANIFEST_FIX = md`update the app from manifest.yml, which declares the step (\`set_promo_quantity\`)`;
const PEOPLE_FIX = md`check that PROMO_EDITORS (and its user groups) name only people of this organization`;
const APP_FIX = md`check that SLACK_BOT_TOKEN is this app's bot token and the app has the \`users:read\` scope (its id is read with \`bots.info\`)`;
const STEP_RESTRICTION_FIXES = new Map<string, Mrkdwn>([
  ['invalid_auth', TOKEN_FIX],
  ['not_authed', TOKEN_FIX],
  ['token_revoked', TOKEN_FIX],
  ['token_expired', TOKEN_FIX],
  ['account_inactive', TOKEN_FIX],
  ['function_not_found', MANIFEST_FIX],
  ['app_not_found', MANIFEST_FIX],
  ['user_not_found', PEOPLE_FIX],
  ['invalid_user_id', PEOPLE_FIX],
  ['app_id_unknown', APP_FIX],
]);
const DEFAULT_STEP_RESTRICTION_FIX = md`check that the app is installed at the organization level with org-ready apps on (\`org_deploy_enabled\` in manifest.yml), or, as an org admin, limit the step with \`admin.functions.permissions.set\``;

const every = (ms: number) =>
  ms >= 60_000 ? md`every ${Math.round(ms / 60_000)} min` : md`every ${Math.max(1, Math.round(ms / 1000))} s`;

/** One line for promo editors: the step is not restricted in Slack, why, and what an admin can do. */
function promoStepRestrictionLine(problem: PromoStepRestriction): Mrkdwn {
  const why = problem.reached
    ? md`Slack answered ${code(problem.error, 60)}`
    : md`Slack could not be reached: ${code(problem.error, 60)}`;
  const fix = problem.reached
    ? (STEP_RESTRICTION_FIXES.get(problem.error) ?? DEFAULT_STEP_RESTRICTION_FIX)
    : md`check that eventops reaches Slack's Web API (network, proxy, SLACK_API_URL)`;
  return warning(
    md`The *Set promo quantity* workflow step could not be restricted to promo editors (${why}), so others may be able to add it to workflows; it still refuses anyone who is not a promo editor when it runs. An admin can ${fix}; eventops tries again ${every(problem.retryEveryMs)}.`,
  );
}

/** Where a watch lives, as the person reads it: a channel, or their DM. */
const watchPlace = (watch: Watch) => (watch.personal ? md`your DM` : channelLink(watch.channel));

function watchLines(watches: readonly Watch[]): Mrkdwn {
  if (watches.length === 0) return md`None yet: try \`/events watch <event>: sold >= 90%\`.`;
  const shown = watches.slice(0, 8).map((watch) => {
    const conditions = watch.conditions.map((c) => code(c.key, 60));
    const paused = watch.paused ? md` · :double_vertical_bar: paused` : md``;
    const more = conditions.length > 4 ? md` ...and ${conditions.length - 4} more` : md``;
    return md`• ${clip(watch.eventName, 120)} in ${watchPlace(watch)}: ${joinMrkdwn(conditions.slice(0, 4), md`, `)}${more}${paused}`;
  });
  const more = watches.length > 8 ? [md`...and ${watches.length - 8} more: \`/events watches\` in each channel`] : [];
  return joinMrkdwn([...shown, ...more]);
}

function budgetLine(budget: BudgetSnapshot, now: number): Mrkdwn {
  const seen = budget.lastObservation;
  if (!seen) return md`No response from the ticketing API yet.`;
  const resetIn = Math.max(0, Math.ceil((seen.resetAt - now) / 1000));
  const paused = budget.pausedUntil
    ? md` Paused by a 429 for ${Math.ceil((budget.pausedUntil - now) / 1000)} s.`
    : md``;
  return md`${seen.remaining} of ${seen.limit} requests left in this window (resets in ${resetIn} s); ${budget.queued.interactive + budget.queued.background} waiting.${paused}`;
}

const OUTCOME: Record<string, Mrkdwn> = {
  updated: md`done`,
  unknown: md`not confirmed (may have been applied)`,
  refused: md`refused`,
};

/**
 * A promo change as people know it: "EARLYBIRD on Summer Tech Meetup", from what its record kept
 * (records from before the code and the event's name were kept show the promo id).
 */
function promoChangeName(record: PromoChangeRecord): Mrkdwn {
  const promo =
    'code' in record && typeof record.code === 'string' && record.code ? code(record.code, 64) : code(record.promoId);
  const event =
    'eventName' in record && typeof record.eventName === 'string' && record.eventName
      ? clip(record.eventName, 120)
      : code(record.eventId);
  return md`${promo} on ${event}`;
}

/** The App Home tab: next events, the user's recent activity and the organization's budget. */
export function homeView(input: HomeViewInput): types.HomeView {
  const blocks: Block[] = [header(md`Upcoming events`)];
  if ('error' in input.events) blocks.push(mrkdwnSection(warning(input.events.error)));
  else if (input.events.length === 0) blocks.push(mrkdwnSection(md`No upcoming events.`));
  else
    for (const event of input.events.slice(0, 5)) {
      blocks.push(...eventSection(event));
      const compared = input.figures?.standing?.get(event.id);
      const standing = compared ? comparablesWords(compared) : undefined;
      if (standing) blocks.push(context(md`:bar_chart: ${standing}`));
    }

  blocks.push(divider(), header(md`Your recent reports`));
  const reports = input.activity.reports.slice(0, 5);
  blocks.push(
    mrkdwnSection(
      reports.length === 0
        ? md`None yet: try \`/events report <eventId>\`.`
        : joinMrkdwn(reports.map((r) => md`• ${clip(r.eventName ?? r.eventId, 150)} · ${readerIsoInstant(r.at)}`)),
    ),
  );
  blocks.push(header(md`Your recent promo changes`));
  const changes = input.activity.promoChanges.slice(0, 5);
  blocks.push(
    mrkdwnSection(
      changes.length === 0
        ? md`None yet.`
        : joinMrkdwn(
            changes.map((c) => {
              const outcome = OUTCOME[c.outcome] ?? md`failed: ${clip(c.error ?? '', 200)}`;
              const change = !input.figures
                ? md``
                : c.previousQuantity === undefined
                  ? md` → ${c.quantity}`
                  : md` ${c.previousQuantity} → ${c.quantity}`;
              return md`• ${promoChangeName(c)}${change} · ${outcome} · ${readerIsoInstant(c.at)}`;
            }),
          ),
    ),
  );
  if (input.promoStepRestriction) blocks.push(mrkdwnSection(promoStepRestrictionLine(input.promoStepRestriction)));
  blocks.push(header(md`Your watches`), mrkdwnSection(watchLines(input.watches ?? [])));
  if (input.personalDigest) blocks.push(...personalDigestHomeBlocks(input.personalDigest));
  if (input.mcpToken) blocks.push(...mcpTokenHomeBlocks(input.mcpToken.listing));
  blocks.push(divider());
  const forecastAccuracy = input.figures?.forecastAccuracy;
  if (forecastAccuracy) blocks.push(context(forecastAccuracyLine(forecastAccuracy)));
  if (input.withheld) blocks.push(context(md`Quantities and forecasts are left out. ${withheldWords(input.withheld)}`));
  blocks.push(context(md`:bar_chart: Ticketing API budget: ${budgetLine(input.budget, input.now)}`));
  return { type: 'home', blocks: capBlocks(blocks, LIMITS.surfaceBlocks, (n) => md`...and ${n} more`) };
}
