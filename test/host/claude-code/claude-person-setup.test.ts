import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyPersonSetup, personMcpServers } from '../../../host/claude-code/person-setup';

describe("the person's Claude Code set-up in a session (settingSources: user)", () => {
  it('copies their CLAUDE.md, skills and settings, without credentials or credential helpers', () => {
    const from = mkdtempSync(join(tmpdir(), 'dex-person-claude-'));
    const to = mkdtempSync(join(tmpdir(), 'dex-session-claude-'));
    writeFileSync(join(from, 'CLAUDE.md'), 'Prefer small commits.\n');
    mkdirSync(join(from, 'skills', 'lint'), { recursive: true });
    writeFileSync(join(from, 'skills', 'lint', 'SKILL.md'), '# lint\n');
    writeFileSync(join(from, '.credentials.json'), '{"token":"secret"}');
    writeFileSync(
      join(from, 'settings.json'),
      JSON.stringify({ model: 'sonnet', permissions: { deny: ['Bash(rm:*)'] }, env: { GITHUB_TOKEN: 'ghp_secret' }, apiKeyHelper: '~/bin/key.sh' }),
    );

    expect(copyPersonSetup(from, to).sort()).toEqual(['CLAUDE.md', 'settings.json', 'skills']);
    expect(readFileSync(join(to, 'CLAUDE.md'), 'utf8')).toBe('Prefer small commits.\n');
    expect(existsSync(join(to, 'skills', 'lint', 'SKILL.md'))).toBe(true);
    expect(existsSync(join(to, '.credentials.json'))).toBe(false);
    expect(JSON.parse(readFileSync(join(to, 'settings.json'), 'utf8'))).toEqual({ model: 'sonnet', permissions: { deny: ['Bash(rm:*)'] } });
  });

  it('copies nothing from a person who has no set-up', () => {
    expect(copyPersonSetup(join(tmpdir(), 'dex-no-such-claude-dir'), mkdtempSync(join(tmpdir(), 'dex-session-claude-')))).toEqual([]);
  });

  it('passes the MCP servers the config names, and only those, and names one the person does not have', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'dex-person-state-')), '.claude.json');
    const github = { type: 'stdio', command: 'npx', args: ['-y', 'github-mcp'], env: { GITHUB_TOKEN: 'ghp_x' } };
    writeFileSync(file, JSON.stringify({ mcpServers: { github, notes: { type: 'http', url: 'https://notes.example/mcp' } }, oauthAccount: { email: 'me@example.com' } }));
    expect(personMcpServers(['github'], file)).toEqual({ github });
    expect(personMcpServers([], file)).toEqual({});
    expect(() => personMcpServers(['jira'], file)).toThrow(`claude.mcpServers names "jira", which is not one of your MCP servers in ${file}`);
  });
});
