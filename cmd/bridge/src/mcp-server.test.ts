/**
 * `bridge mcp`, the MCP server an agent runs for its collaboration tools,
 * driven by the official MCP client over stdio as an agent CLI drives it:
 * tools listed and called through the daemon's tool socket (here a socket
 * with a stand-in for the daemon's tools), the capability read from its
 * file, refusals returned as tool errors.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BridgeError } from '@agent-bridge/bridge';

import { startToolSocket, type ToolSocket } from '@agent-bridge/server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const CAPABILITY = 'cap-of-session-a';
let dir: string;
let socket: ToolSocket;
const calls: { name: string; args: unknown }[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-'));
  const check = (cap: string) => {
    if (cap !== CAPABILITY)
      throw new BridgeError(
        'permission_denied',
        'the capability is not valid',
        'capability_invalid',
      );
  };
  socket = await startToolSocket({
    path: join(dir, 'tools.sock'),
    logger: pino({ level: 'silent' }),
    tools: {
      listFor: (cap) => {
        check(cap);
        return [
          {
            name: 'context_post',
            description: 'post',
            inputSchema: {
              type: 'object',
              properties: { content: { type: 'string' } },
              additionalProperties: false,
            },
          },
        ];
      },
      call: async (cap, name, args) => {
        check(cap);
        calls.push({ name, args });
        if (name === 'context_post') return { post_id: 7 };
        throw new BridgeError('not_found', `no tool "${name}"`, 'tool_unknown');
      },
    },
  });
});

afterAll(async () => {
  await socket.close();
  rmSync(dir, { recursive: true, force: true });
});

async function mcpClient(capability: string) {
  const file = join(dir, `${capability}.cap`);
  writeFileSync(file, `${capability}\n`, { mode: 0o600 });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      '--conditions=development',
      '--import',
      'tsx',
      join(REPO_ROOT, 'cmd/bridge/src/main.ts'),
      'mcp',
      '--socket',
      socket.path,
      '--capability-file',
      file,
    ],
    env: { PATH: process.env.PATH ?? '' },
    cwd: REPO_ROOT,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(transport, { timeout: 30_000 });
  return client;
}

describe('bridge mcp', () => {
  it('lists the daemon’s tools and calls them with the session’s capability', async () => {
    const client = await mcpClient(CAPABILITY);
    try {
      expect(client.getServerVersion()?.name).toBe('bridge');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['context_post']);
      const result = await client.callTool({
        name: 'context_post',
        arguments: { content: 'hello' },
      });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ post_id: 7 });
      expect(calls.at(-1)).toEqual({ name: 'context_post', args: { content: 'hello' } });
      const unknown = await client.callTool({ name: 'nope', arguments: {} });
      expect(unknown).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: 'not_found: no tool "nope"' }],
      });
    } finally {
      await client.close();
    }
  });

  it('with a capability the daemon does not know, every call is refused', async () => {
    const client = await mcpClient('forged');
    try {
      const r = await client.callTool({ name: 'context_post', arguments: { content: 'x' } });
      expect(r).toMatchObject({
        isError: true,
        content: [{ text: 'permission_denied: the capability is not valid' }],
      });
      await expect(client.listTools()).rejects.toThrow(/permission_denied/);
    } finally {
      await client.close();
    }
  });
});
