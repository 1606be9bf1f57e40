// docs/claude-code.md#the-persons-set-up: claude.mcpServers passes the person's own MCP servers, by name, into the session's sandbox.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SANDBOX } from '../../../core/safety/sandbox-policy';
import type { TaskResult } from '../../../core/task/task-types';
import { completionTurn } from '../../support/model/cassette-builder';
import { useDexEnvironment } from '../../support/env/dex-environment';

const TASK = 'T-cc-mcp';
const dex = useDexEnvironment({ server: 'dev', cassette: [completionTurn(TASK, { status: 'complete', summary: 'looked' })], queue: 'dex-it-claude-mcp' });

/** A stdio MCP server with one tool, `lookup`: JSON-RPC a line at a time, as the protocol's stdio transport is. */
const SERVER = `
const rl = require('node:readline').createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'notes', version: '1.0.0' } } });
  else if (m.method === 'tools/list') send({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'lookup', description: 'Looks a note up', inputSchema: { type: 'object', properties: {} } }] } });
  else send({ jsonrpc: '2.0', id: m.id, result: {} });
});
`;

describe('claude.mcpServers', () => {
  const person = mkdtempSync(join(tmpdir(), 'dex-person-'));
  const serverDir = mkdtempSync(join(tmpdir(), 'dex-mcp-server-'));
  let before: string | undefined;
  beforeAll(() => {
    writeFileSync(join(serverDir, 'server.cjs'), SERVER);
    mkdirSync(join(person, 'claude'), { recursive: true });
    const server = (name: string) => ({ type: 'stdio', command: 'node', args: [join(serverDir, 'server.cjs')], env: {}, name });
    writeFileSync(join(person, 'claude', '.claude.json'), JSON.stringify({ mcpServers: { notes: server('notes'), mail: server('mail') } }));
    before = process.env.CLAUDE_CONFIG_DIR;
    process.env.CLAUDE_CONFIG_DIR = join(person, 'claude');
  });
  afterAll(() => {
    if (before === undefined) delete process.env.CLAUDE_CONFIG_DIR;
    else process.env.CLAUDE_CONFIG_DIR = before;
  });

  it("gives the session the person's servers it names, running in its sandbox, and no other", async () => {
    const { handle } = await dex.startTask(TASK, {
      agents: { default: 'claude-code' },
      claude: { settingSources: ['project'], mcpServers: ['notes'] },
      sandbox: { ...DEFAULT_SANDBOX, readOnlyPaths: [serverDir] },
      verify: [],
    });
    const result = (await handle.result()) as TaskResult;
    expect(result.state).toBe('completed');
    const [request] = dex.requestsFor(TASK);
    const body = JSON.stringify(request.body);
    expect(body).toContain('mcp__notes__lookup');
    expect(body).not.toContain('mcp__mail__');
  }, 120_000);
});
