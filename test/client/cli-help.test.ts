import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandNames } from '../../client/cli';
import { COMMAND_HELP, optionLines, usageOf, type HelpTopic } from '../../client/command-help';
import { runDex } from '../support/env/dex-cli';

// The real `dex` binary. TEMPORAL_ADDRESS is a dead port: a command that got past its options
// would exit 3 when it connects, so help never reaches a server.
const env = { TEMPORAL_ADDRESS: '127.0.0.1:1', DEX_HOME: '/nonexistent/dex-home' };
const dex = (...args: string[]) => runDex(args, { env, timeoutMs: 60_000 });

const topics = Object.keys(COMMAND_HELP) as HelpTopic[];

/** The options README's command list gives each command (`dex task "TITLE" [--repo DIR] …`), by command. */
function readmeOptions(): Map<string, string[]> {
  const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');
  const block = readme.slice(readme.indexOf('## Commands'), readme.indexOf('Every command takes `--json`'));
  const options = new Map<string, string[]>();
  for (const usage of block.split(/\n| \| /).map((l) => l.trim()).filter((l) => l.startsWith('dex '))) {
    const name = usage.split(/\s+/)[1];
    if (!/^[a-z]/.test(name)) continue; // `dex COMMAND --help`
    options.set(name, [...(options.get(name) ?? []), ...(usage.match(/--[a-z][a-z-]*/g) ?? [])]);
  }
  return options;
}

describe('dex help', () => {
  it('knows every command the CLI runs', () => {
    expect(commandNames().sort()).toEqual([...topics].sort());
  });

  it('lists every command with its options in the overview, exit 0', async () => {
    const run = await dex('help');
    expect(run.code, run.stderr).toBe(0);
    for (const name of topics) expect(run.stdout).toContain(`dex ${name}`);
    expect(run.stdout).toMatch(/dex task "TITLE" \[--description TEXT\] \[--repo DIR\]/);
    expect((await dex('--help')).stdout).toBe(run.stdout);
  });

  it.concurrent.each(topics)('dex %s --help and dex help %s print its usage and every option, exit 0', async (name) => {
    const [viaFlag, viaHelp, viaShort] = await Promise.all([dex(name, '--help'), dex('help', name), dex(name, '-h')]);
    expect(viaFlag.code, viaFlag.stderr).toBe(0);
    expect(viaFlag.stderr).toBe('');
    expect(viaFlag.stdout).toMatch(new RegExp(`^usage: dex ${name}\\b`));
    for (const { flag } of optionLines(name)) expect(viaFlag.stdout).toContain(flag);
    for (const option of readmeOptions().get(name) ?? []) expect(viaFlag.stdout, `README documents ${option} for dex ${name}`).toContain(option);
    expect(viaHelp).toEqual(viaFlag);
    expect(viaShort).toEqual(viaFlag);
  });

  it('prints the overview for `dex` alone, as plain help: exit 0, nothing on stderr', async () => {
    const [bare, help] = await Promise.all([dex(), dex('help')]);
    expect(bare.code, bare.stderr).toBe(0);
    expect(bare.stderr).toBe('');
    expect(bare.stdout).toBe(help.stdout);
  });

  it('names each option once in a usage', () => {
    for (const name of topics) {
      const flags = usageOf(name).match(/--[a-z][a-z-]*/g) ?? [];
      expect(flags, `dex help ${name}`).toEqual([...new Set(flags)]);
    }
    expect(usageOf('retry')).toBe('dex retry ID --from PHASE [--note TEXT] [--detach]');
  });

  it('every command README lists has help', () => {
    for (const name of readmeOptions().keys()) expect(topics).toContain(name);
  });

  it('answers --help after other arguments, and with --json as one document', async () => {
    const run = await dex('task', 'Fix sum', '--repo', '/nonexistent', '--help', '--json');
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(run.stdout);
    expect(doc).toMatchObject({ command: 'task', usage: expect.stringMatching(/^dex task "TITLE"/) });
    expect(doc.options.map((o: { flag: string }) => o.flag)).toContain('--unsafe-no-sandbox');
  });

  it('names an unknown command with exit 2', async () => {
    const run = await dex('help', 'frobnicate');
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/unknown command "frobnicate"/);
    expect(run.stdout).toBe('');
    expect((await dex('frobnicate', '--help')).code).toBe(2);
  });

  it('points a mistyped option to the command\'s help', async () => {
    const run = await dex('list', '--stat', 'waiting');
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--stat.*see `dex help list`/s);
  });

  // The signal commands read their options outside the help table: each documented option must
  // get past the parser (to the dead server: exit 3), not stop at it (exit 2).
  it.concurrent.each(['approve', 'reject', 'pause', 'resume', 'cancel'] as const)('dex %s takes every option its help documents', async (name) => {
    const args = Object.entries(COMMAND_HELP[name].options).flatMap(([option, o]) => (o.type === 'string' ? [`--${option}`, '1'] : [`--${option}`]));
    const run = await dex(name, 'some-run', ...args);
    expect(run.stderr).not.toMatch(/Unknown option/);
    expect(run.code, run.stderr).toBe(3);
  });
});
