import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { type SandboxStack, startSandboxStack } from '../../src/sandbox/sandbox-stack.js';

/* Issue 46: the MCP server is on in the local sandbox (off in a workspace unless MCP_SERVER=on). */

const open: SandboxStack[] = [];
afterAll(async () => {
  for (const stack of open) await stack.close();
});

async function stack(env: Record<string, string>): Promise<{ stack: SandboxStack; lines: string[] }> {
  const lines: string[] = [];
  const started = await startSandboxStack({
    env: { LOG_LEVEL: 'info', ...env },
    logger: createLogger({ level: 'info', write: (line) => lines.push(line) }),
  });
  open.push(started);
  return { stack: started, lines };
}

describe('the MCP server in the sandbox', () => {
  it('is on, names its URL in the log, and refuses a request without a token (401)', async () => {
    const { stack: started, lines } = await stack({});
    expect(started.bot.mcp).toBeDefined();
    const line = lines.find((each) => each.includes('MCP server for agents at'));
    const url = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(line ?? '')?.[0];
    expect(url).toBeDefined();
    const answer = await fetch(url as string, { method: 'POST', body: '{}' });
    expect(answer.status).toBe(401);
    // The page is served with it, to show how to connect (the bot's port, not the page's).
    expect(started.mcpUrl).toBe(url);
    const page = await (await fetch(started.url)).text();
    expect(page).toContain(`<meta name="mcp-url" content="${url}" />`);
    expect(page).toContain('/events mcp token');
  });

  it('is off when MCP_SERVER=off', async () => {
    const { stack: started, lines } = await stack({ MCP_SERVER: 'off' });
    expect(started.bot.mcp).toBeUndefined();
    expect(lines.some((each) => each.includes('MCP server for agents'))).toBe(false);
    expect(started.mcpUrl).toBeUndefined();
    expect(await (await fetch(started.url)).text()).toContain('<meta name="mcp-url" content="" />');
  });
});
