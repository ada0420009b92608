import type { App } from '@slack/bolt';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { eventReportStep } from './event-report-step.js';
import { promoQuantityStep } from './promo-quantity-step.js';
import { upcomingEventsStep } from './upcoming-events-step.js';
import { registerStep } from './workflow-step.js';

/** The custom steps eventops offers Workflow Builder; each is declared under `functions` in manifest.yml. */
export const WORKFLOW_STEPS = [eventReportStep, promoQuantityStep, upcomingEventsStep];

/** Listens for every step's `function_executed` event. */
export function registerWorkflowSteps(app: App, deps: SlackDeps): void {
  for (const step of WORKFLOW_STEPS) registerStep(app, deps, step);
}
