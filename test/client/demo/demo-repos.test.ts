import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newDemoRepoPath, recordedDemoRepos, removeDemoRepo } from '../../../client/demo/demo-repos';

/** A pid that is surely gone: a child that has already exited. */
const deadPid = (): number => spawnSync(process.execPath, ['-e', '']).pid!;

describe('the demo repositories dex clean may remove (docs/interfaces.md#dex-clean)', () => {
  it('records each new demo folder under DEX_HOME, held by the live demo that made it', () => {
    const home = mkdtempSync(join(tmpdir(), 'dex-demos-home-'));
    const repo = newDemoRepoPath(home);
    expect(basename(repo)).toBe('math');
    expect(basename(dirname(repo))).toMatch(/^dex-demo-/);
    expect(existsSync(dirname(repo))).toBe(true);
    // This process made it and runs still: its demo is running.
    expect(recordedDemoRepos(home)).toEqual([expect.objectContaining({ folder: dirname(repo), repo, demoRunning: true, gone: false })]);
  });

  it('names only dex-demo- folders a record names, and removes one with its record', () => {
    const home = mkdtempSync(join(tmpdir(), 'dex-demos-home-'));
    const demos = join(home, 'demos');
    mkdirSync(demos);
    const folder = mkdtempSync(join(tmpdir(), 'dex-demo-'));
    const precious = mkdtempSync(join(tmpdir(), 'precious-'));
    const record = (name: string, body: unknown) => writeFileSync(join(demos, name), JSON.stringify(body));
    record(`${deadPid()}-00000001.json`, { folder });
    record(`${deadPid()}-00000002.json`, { folder: precious });
    record(`${deadPid()}-00000003.json`, { folder: '/tmp/dex-demo-x/../../home' });
    record(`${deadPid()}-00000004.json`, { folder: join(tmpdir(), 'dex-demo-emptied-by-a-reboot') });
    writeFileSync(join(demos, `${deadPid()}-00000005.json`), 'not json');

    const found = recordedDemoRepos(home);
    expect(found.map((d) => [d.folder, d.demoRunning, d.gone])).toEqual(
      expect.arrayContaining([
        [folder, false, false],
        [join(tmpdir(), 'dex-demo-emptied-by-a-reboot'), false, true],
      ]),
    );
    expect(found).toHaveLength(2);

    for (const demo of found) removeDemoRepo(demo);
    expect(existsSync(folder)).toBe(false);
    expect(existsSync(precious)).toBe(true);
    expect(readdirSync(demos).sort()).toEqual([expect.stringMatching(/-00000002\.json$/), expect.stringMatching(/-00000003\.json$/), expect.stringMatching(/-00000005\.json$/)]);
  });
});
