import type { webApi } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import type { ReportStatus } from '../../src/reports/report-status.js';
import { runReportView } from '../../src/slack/reports/run-report.js';
import { CancelledError, UnavailableError } from '../../src/ticketing/errors.js';

/*
 * A Get event report run as the report flow sees it: a stand-in for Slack's `functions.*` methods
 * (Slack cannot run here) writes down what the run was told.
 */
function recordingClient() {
  const calls: { method: string; args: Record<string, unknown> }[] = [];
  const client = {
    functions: {
      completeSuccess: async (args: Record<string, unknown>) => calls.push({ method: 'completeSuccess', args }),
      completeError: async (args: Record<string, unknown>) => calls.push({ method: 'completeError', args }),
    },
  } as unknown as webApi.WebClient;
  return { client, calls };
}

const ask = { eventId: 'evt_1', label: '<!channel> Gala' };
const where = { kind: 'workflow', executionId: 'Fx1', runBy: 'U0RUNNER', postIn: 'C0OPS' } as const;
/** The figures rule's facts for a member running the workflow into a channel of the organization. */
const MEMBER_IN_OWN_CHANNEL = {
  audience: {
    of: async () => ({ kind: 'internal', botIsMember: true }) as const,
    person: async () => ({ kind: 'member' }) as const,
  },
};

async function shown(status: ReportStatus) {
  const { client, calls } = recordingClient();
  const view = runReportView(client, ask, where, silentLogger, MEMBER_IN_OWN_CHANNEL);
  await view.show({ state: 'queued', position: 2, estimatedWaitMs: 20_000 });
  await view.show({ state: 'fetching', position: 0, estimatedWaitMs: 0 });
  await view.show(status);
  return { view, calls };
}

describe('a Get event report run as a place a report goes', () => {
  it('shows no progress, completes with the report, and is nobody’s App Home activity', async () => {
    const { view, calls } = await shown({ state: 'report', report: { ticketsSold: 5 } });
    expect(view.kind).toBe('result');
    expect(calls).toEqual([
      {
        method: 'completeSuccess',
        args: {
          function_execution_id: 'Fx1',
          outputs: expect.objectContaining({ event_id: 'evt_1', event_name: '<!channel> Gala', tickets_sold: 5 }),
        },
      },
    ]);
    // Outside text is escaped in the text output, kept as typed in the plain name.
    const outputs = calls[0]?.args.outputs as Record<string, unknown> | undefined;
    expect(String(outputs?.report_text)).toContain('&lt;!channel&gt; Gala');
  });

  it.each<[string, ReportStatus, string]>([
    [
      'failed',
      { state: 'failed', error: new UnavailableError('down') },
      "Get event report could not finish: I couldn't reach the Event Ticketing Service. Please try again in a minute.",
    ],
    [
      'expired',
      { state: 'expired', error: new CancelledError('deadline') },
      'Get event report could not finish: The Event Ticketing Service is slow to answer right now (it may be busy). Please try again in a minute.',
    ],
    [
      'lost',
      { state: 'lost' },
      'Get event report did not finish: the report was not fetched because Redis lost its place in the queue (emptied or evicted). Run the workflow again.',
    ],
    [
      'abandoned',
      { state: 'abandoned' },
      'eventops was restarting, so Get event report did not finish. Run the workflow again in a minute.',
    ],
  ])('fails the run in words when the report %s', async (_state, status, words) => {
    const { calls } = await shown(status);
    expect(calls).toEqual([{ method: 'completeError', args: { function_execution_id: 'Fx1', error: words } }]);
  });
});
