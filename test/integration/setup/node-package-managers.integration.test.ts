import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SetupConfig } from '../../../core/run/setup-types';
import type { TaskResult } from '../../../core/task/task-types';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { fileAt } from '../../support/env/dev-server-env';
import { fixTurns, type RealProject } from '../../support/projects/real-projects';
import { NEWER_ENGINES_DEV_DEPENDENCY, PINNED_PNPM, SHIPPED_YARN, YARN_CLASSIC, pnpmProject, pnpmWorkspaceProject, yarnBerryProject, yarnClassicProject, yarnNewerEnginesProject } from '../../support/projects/real-projects-node';

const FIX = { path: 'src/duration.js', old_string: 'ms(text) + 1', new_string: 'ms(text)' };
const WS_FIX = { path: 'packages/duration/index.js', old_string: 'ms(text) + 1', new_string: 'ms(text)' };

/** The turns that fix a project's planted bug: one edit, then complete. */
const CASSETTE = [
  ...fixTurns('N-pnpm', FIX),
  ...fixTurns('N-pnpm-again', FIX),
  ...fixTurns('N-yarn', FIX),
  ...fixTurns('N-yarn-again', FIX),
  ...fixTurns('N-ws', WS_FIX),
  ...fixTurns('N-ws-again', WS_FIX),
  ...fixTurns('N-berry', FIX),
  ...fixTurns('N-engines', FIX),
];

const dex = useDexEnvironment({ server: 'dev', cassette: CASSETTE, queue: 'dex-it-node-pm' });

/** Another checkout of `repo` with the same files: its setup has the same cache key. */
function cloneOf(repo: string): string {
  const clone = join(mkdtempSync(join(tmpdir(), 'dex-clone-')), 'repo');
  execFileSync('git', ['clone', '-q', repo, clone]);
  return clone;
}

/** Runs task `id` on `repo` with `verify`, expects it completed with the fix landed and nothing setup filled committed; returns its result. */
async function fixes(id: string, repo: string, fix: RealProject['fix'], verify: string[], setup?: SetupConfig): Promise<TaskResult> {
  const { handle } = await dex.startTask(id, { repoPath: repo, verify, setup });
  const result = (await handle.result()) as TaskResult;
  expect(result.state, JSON.stringify(result)).toBe('completed');
  expect(result.verifyPassed).toBe(true);
  expect(fileAt(repo, result.commit!, fix.path)).toContain('ms(text);');
  const committed = execFileSync('git', ['show', '--stat', '--format=', result.commit!], { cwd: repo, encoding: 'utf8' });
  expect(committed).not.toMatch(/node_modules|\.dex\//);
  // The owner's checkout was not touched.
  expect(existsSync(join(repo, 'node_modules'))).toBe(false);
  return result;
}

describe('pnpm and yarn projects on the machine\'s Node, with no configuration (docs/real-repositories.md#package-managers)', () => {
  let pnpm: RealProject, yarn: RealProject, workspace: RealProject, berry: RealProject;
  beforeAll(() => {
    pnpm = pnpmProject();
    yarn = yarnClassicProject();
    workspace = pnpmWorkspaceProject();
    berry = yarnBerryProject();
  });

  it(`a project pinning pnpm ${PINNED_PNPM} with corepack's hash: setup fetches that pnpm, verify runs \`pnpm test\`, the next checkout restores from the cache`, async () => {
    expect(execFileSync('git', ['show', 'HEAD:package.json'], { cwd: pnpm.repo, encoding: 'utf8' })).toMatch(new RegExp(`"packageManager": "pnpm@${PINNED_PNPM}\\+sha512\\.[0-9a-f]{128}"`));
    const first = await fixes('N-pnpm', pnpm.repo, pnpm.fix, ['pnpm test', `pnpm --version | grep -qx ${PINNED_PNPM}`]);
    expect(first.setup).toMatch(/^pnpm installed \d+\.\d s$/);
    const again = await fixes('N-pnpm-again', cloneOf(pnpm.repo), pnpm.fix, ['pnpm test']);
    expect(again.setup).toMatch(/^pnpm from cache/);
  });

  it(`a yarn classic project (yarn.lock v1, nothing pinned): yarn ${YARN_CLASSIC} installs it, verify runs \`yarn test\``, async () => {
    const first = await fixes('N-yarn', yarn.repo, yarn.fix, ['yarn test', `yarn --version | grep -qx ${YARN_CLASSIC}`]);
    expect(first.setup).toMatch(/^yarn installed \d+\.\d s$/);
    const again = await fixes('N-yarn-again', cloneOf(yarn.repo), yarn.fix, ['yarn test']);
    expect(again.setup).toMatch(/^yarn from cache/);
  });

  it('a pnpm workspace: the package\'s own node_modules is cached and restored with the root\'s', async () => {
    const first = await fixes('N-ws', workspace.repo, workspace.fix, ['pnpm test', 'test -L packages/duration/node_modules/ms']);
    expect(first.setup).toMatch(/^pnpm installed/);
    // Only packages/duration/node_modules has ms: the restored checkout's tests pass only if it came back too.
    const again = await fixes('N-ws-again', cloneOf(workspace.repo), workspace.fix, ['pnpm test', 'test ! -e node_modules/ms']);
    expect(again.setup).toMatch(/^pnpm from cache/);
  });

  it(`a yarn ${SHIPPED_YARN} project shipping its release (yarnPath): that release installs it, nothing fetched, verify runs \`yarn test\``, async () => {
    // yarn 2+ reads no npmrc: a network that inspects TLS (this test's, perhaps) names its CA to Node (`setup.env`), as its owner would.
    const first = await fixes('N-berry', berry.repo, berry.fix, ['yarn test', `yarn --version | grep -qx ${SHIPPED_YARN}`]);
    expect(first.setup).toMatch(/^yarn installed/);
    // Its download cache is there (yarn's own packages went into it), but no yarn was fetched.
    expect(existsSync(join(dex.worker.dexHome, 'deps-cache', '.downloads', 'yarn'))).toBe(true);
    const fetched = join(dex.worker.dexHome, 'deps-cache', '.downloads', 'package-managers');
    expect((existsSync(fetched) ? readdirSync(fetched) : []).filter((name) => name.startsWith('@yarnpkg'))).toEqual([]);
  });

  it(`a yarn classic project whose devDependency's engines exclude this Node (${NEWER_ENGINES_DEV_DEPENDENCY.name} asks ${NEWER_ENGINES_DEV_DEPENDENCY.node}): installed as its owner would, and the setup line says so (docs/real-repositories.md#node-engines)`, async () => {
    const { name, version, node } = NEWER_ENGINES_DEV_DEPENDENCY;
    const project = yarnNewerEnginesProject();
    const loads = `node -e "import('${name}').then((m) => process.exit(m.default('ab') === 2 ? 0 : 1))"`;
    const result = await fixes('N-engines', project.repo, project.fix, ['yarn test', loads]);
    if (Number(process.versions.node.split('.')[0]) >= 22) expect(result.setup).toMatch(/^yarn installed \d+\.\d s$/);
    // On Node 20: a Node of the owner's that satisfies it (nvm, fnm, volta), else this Node with yarn's --ignore-engines.
    else expect(result.setup).toMatch(new RegExp(`^yarn installed \\d+\\.\\d s \\(engines: node ${node} asked \\(${name}@${version}\\), (\\S+ \\(\\w+\\) used|${process.versions.node} used: --ignore-engines)\\)$`));
  });
});
