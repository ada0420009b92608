import type { RespondFn, webApi } from '@slack/bolt';
import { type EventTarget, resolveEvent, targetText } from '../../../catalog/find-events.js';
import { warningMessage } from '../../../render/block-kit.js';
import { eventLabel } from '../../../render/event-blocks.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { respondPrivately } from '../../replies/respond-safely.js';
import { userMessageFor } from '../../replies/user-message.js';
import { askForReport } from '../../reports/ask-for-report.js';
import { commandFor } from './command-parser.js';
import { nameOrId, notOneEventAnswer } from './no-event-answer.js';

export interface ReportCommand {
  respond: RespondFn;
  client: webApi.WebClient;
  channelId: string;
  userId: string;
  /** The asker's team (Bolt's context.teamId, else its enterpriseId). */
  teamId?: string | undefined;
  /** The request's response URL, so that another replica can still answer privately. */
  responseUrl?: string | undefined;
  target: EventTarget;
}

/** `/events report <id or words>`: finds the one event meant in the catalog, then asks for its report. */
export async function handleReportCommand(deps: SlackDeps, request: ReportCommand): Promise<void> {
  let resolved: Awaited<ReturnType<typeof resolveEvent>>;
  try {
    resolved = await resolveEvent(deps.catalog, request.target, deps.interactive());
  } catch (error) {
    await respondPrivately(request.respond, warningMessage(userMessageFor(error)), deps.logger);
    return;
  }
  const query = targetText(request.target);
  if (resolved.kind === 'found') {
    await askForReport(deps, { ...request, eventId: resolved.event.id, label: eventLabel(resolved.event) });
    return;
  }
  // Each button finishes this command with its event, in the channel of the click, for whoever clicks it.
  const action = {
    verb: 'Report',
    command: (eventId: string) => commandFor({ kind: 'report', target: request.target }, eventId),
  };
  const message = notOneEventAnswer(deps, resolved, {
    query,
    action,
    typed: (event) => `report ${nameOrId(event)}`,
  });
  await respondPrivately(request.respond, message, deps.logger);
}
