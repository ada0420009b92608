import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { launchChromium } from './launch-chromium.js';
import { useSandboxInBrowser } from './sandbox-in-browser.js';

// Issue 46: the sandbox's page shows how to connect an agent to this sandbox's MCP server (its URL,
// on the bot's port, not the page's), and following what it shows connects, in a real Chromium.
const rig = useSandboxInBrowser(() => launchChromium());

describe('the sandbox page and the MCP server', () => {
  it('shows the URL of this sandbox’s /mcp and the command for a token, and they connect an agent', async () => {
    const note = rig.page.locator('[data-testid=mcp-note]');
    await expect.poll(() => note.isVisible()).toBe(true);
    const url = (await note.locator('[data-testid=mcp-url]').textContent()) ?? '';
    expect(url).toBe(rig.stack.mcpUrl);
    expect(new URL(url).pathname).toBe('/mcp');
    expect(new URL(url).port).not.toBe(new URL(rig.stack.url).port);
    expect(await note.textContent()).toContain('/events mcp token');
    expect(await note.locator('[data-testid=mcp-add]').textContent()).toBe(
      `claude mcp add --transport http eventops ${url} --header "Authorization: Bearer <token>"`,
    );

    // As the note says: the command, typed in the page, answers a token privately.
    await rig.type('/events mcp token');
    const answer = rig.page.locator('[data-testid=ephemeral]', { hasText: 'eo_mcp_' });
    await expect.poll(() => answer.count(), { timeout: 15_000 }).toBe(1);
    // In its code span, as Slack shows it.
    const token = await answer.locator('code', { hasText: 'eo_mcp_' }).textContent();
    expect(token).toMatch(/^eo_mcp_[A-Za-z0-9_-]+$/);
    const client = new Client({ name: 'sandbox-page-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('sales_forecast');
    } finally {
      await client.close();
    }
  });
});
