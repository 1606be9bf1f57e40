import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createActivities, type ActivityDeps } from '../../activities';
import { sourceFiles } from '../support/house/import-graph';

const ROOT = join(__dirname, '..', '..');
const ARCHITECTURE = join(ROOT, 'docs', 'architecture.md');

/** One activity: its name, the file that defines it, the retry policies the workflows call it with. */
interface Row {
  activity: string;
  file: string;
  policies: string;
}

/** Dependencies that are never used: building the activities touches them (a path, at most, read as a string), calling none does. */
const inert: unknown = new Proxy(function () {}, {
  get: (_target, key) => (key === Symbol.toPrimitive ? () => join(tmpdir(), 'dex-inert') : inert),
  apply: () => inert,
  construct: () => inert as object,
});

/** Every activity dex registers, where it is defined (`async name(` or `name: (…) =>` in activities/) and each policy a workflow proxies it with. */
function actualRows(root: string): Row[] {
  const names = Object.keys(createActivities(inert as ActivityDeps)).sort();
  const activityFiles = sourceFiles(root, ['activities']).map((f) => ({ path: relative(root, f), text: readFileSync(f, 'utf8') }));
  const policies = new Map<string, Set<string>>();
  for (const file of sourceFiles(root, ['workflows'])) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/const\s+(\{[^}]*\}|\w+)\s*=\s*proxyActivities<\w+>\(\{\s*\.\.\.(\w+)/g)) {
      const [, binding, policy] = m;
      const called = binding.startsWith('{')
        ? binding.slice(1, -1).split(',').map((n) => n.trim().split(':')[0].trim())
        : [...text.matchAll(new RegExp(`\\b${binding}\\.(\\w+)`, 'g'))].map((u) => u[1]);
      for (const name of called.filter(Boolean)) policies.set(name, (policies.get(name) ?? new Set()).add(policy));
    }
    // A table of policies by activity (workflows/task/activities.ts `POLICIES`), and one routed with a policy of its input (`route('name', … => policy(`).
    const tables = [...text.matchAll(/const\s+POLICIES\s*=\s*\{([^}]*)\}/g)].flatMap((t) => [...t[1].matchAll(/^\s*(\w+):\s*(\w+),?$/gm)]);
    const routed = [...text.matchAll(/route\('(\w+)',\s*\([^)]*\)\s*=>\s*(\w+)\(/g)];
    for (const [, name, policy] of [...tables, ...routed]) policies.set(name, (policies.get(name) ?? new Set()).add(policy));
  }
  return names.map((activity) => {
    const defined = activityFiles.filter((f) => new RegExp(`^\\s*(async\\s+${activity}\\s*\\(|${activity}\\s*:\\s*(async\\s*)?\\()`, 'm').test(f.text)).map((f) => f.path);
    return { activity, file: defined.join(', ') || '(not found)', policies: [...(policies.get(activity) ?? ['(none)'])].sort().join(', ') };
  });
}

/** The rows of the activity table in `markdown`: `| \`name\` | \`file\` | \`policy\`, … |`. */
function tableRows(markdown: string): Row[] {
  return [...markdown.matchAll(/^\| `(\w+)` \| `([^`]+)` \| ([^|]+) \|$/gm)].map(([, activity, file, policies]) => ({
    activity,
    file,
    policies: policies.replace(/`/g, '').split(',').map((p) => p.trim()).sort().join(', '),
  }));
}

/** Where the table and the code disagree, one line each. */
function disagreements(table: Row[], actual: Row[]): string[] {
  const line = (r: Row) => `${r.activity} | ${r.file} | ${r.policies}`;
  const inTable = new Set(table.map(line));
  const inCode = new Set(actual.map(line));
  return [...actual.filter((r) => !inTable.has(line(r))).map((r) => `missing or wrong in docs/architecture.md: ${line(r)}`), ...table.filter((r) => !inCode.has(line(r))).map((r) => `not so in the code: ${line(r)}`)];
}

describe('the activity table (docs/architecture.md#activities)', () => {
  const actual = actualRows(ROOT);

  it('names every activity once, each in one file, each proxied with a policy', () => {
    expect(actual.filter((r) => r.file.includes(',') || r.file.startsWith('(') || r.policies.startsWith('('))).toEqual([]);
  });

  it('says for each activity the file it is in and the policy it runs under', () => {
    expect(disagreements(tableRows(readFileSync(ARCHITECTURE, 'utf8')), actual)).toEqual([]);
  });

  it('the check finds a row broken on purpose: a wrong file, a wrong policy, a missing activity', () => {
    const table = tableRows(readFileSync(ARCHITECTURE, 'utf8'));
    const [first, second, ...rest] = table;
    const broken = [{ ...first, file: 'activities/elsewhere.ts' }, { ...second, policies: 'noSuchPolicy' }, ...rest.slice(1)];
    const found = disagreements(broken, actual);
    expect(found.filter((d) => d.startsWith('missing'))).toEqual([first, second, rest[0]].map((r) => `missing or wrong in docs/architecture.md: ${r.activity} | ${r.file} | ${r.policies}`));
    expect(found.filter((d) => d.startsWith('not so'))).toEqual([`not so in the code: ${first.activity} | activities/elsewhere.ts | ${first.policies}`, `not so in the code: ${second.activity} | ${second.file} | noSuchPolicy`]);
  });
});

/** `PRINT_ACTIVITY_TABLE=1 npx vitest run test/house/activity-table.test.ts`: the table as the code has it, to paste into docs/architecture.md. */
if (process.env.PRINT_ACTIVITY_TABLE) {
  for (const r of actualRows(ROOT)) console.log(`| \`${r.activity}\` | \`${r.file}\` | ${r.policies.split(', ').map((p) => `\`${p}\``).join(', ')} |`);
}
