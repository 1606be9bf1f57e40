import { isAbsolute, join } from 'node:path';
import { mkdir, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { readRecord, type EcosystemPlan } from '../ecosystem-plan';
import { engineNote } from './node-engines';
import { nodeSatisfying, ownerNodes, type OwnerNode } from './owner-nodes';

/**
 * How each package manager says a package's `engines` exclude the Node it runs on, and how the
 * owner installs past it on that Node: yarn classic checks every package and fails; npm and pnpm
 * fail only with `engine-strict=true` in an `.npmrc` (they warn otherwise); yarn 2+ never checks.
 */
const ENGINE_FAILURE: Record<string, { failed: RegExp; flag: string }> = {
  yarn: { failed: /The engine "node" is incompatible with this module/, flag: '--ignore-engines' },
  npm: { failed: /\bEBADENGINE\b/, flag: '--engine-strict=false' },
  pnpm: { failed: /ERR_PNPM_UNSUPPORTED_ENGINE/, flag: '--config.engine-strict=false' },
};

/** What each manager's failure names: the package (or project), the range it asks, the Node it got. */
const ASKED: RegExp[] = [
  // yarn: error string-width@9.0.0: The engine "node" is incompatible with this module. Expected version ">=22". Got "20.20.2"
  /(?<by>\S+): The engine "node" is incompatible with this module\. Expected version "(?<range>[^"]+)"\. Got "(?<got>[^"]+)"/g,
  // npm: notsup Not compatible with your version of node/npm: string-width@9.0.0 ⏎ notsup Required: {"node":">=22"} ⏎ notsup Actual: {"npm":"10.8.2","node":"v20.20.2"}
  /node\/npm: (?<by>\S+)\s+[^\n]*?Required:\s*\{[^}]*"node":"(?<range>[^"]+)"[^}]*\}\s+[^\n]*?Actual:\s*\{[^}]*"node":"v?(?<got>[^"]+)"/g,
  // pnpm: Your Node version is incompatible with "string-width@9.0.0". ⏎ Expected version: >=22 ⏎ Got: v20.20.2
  /incompatible with "(?<by>[^"]+)"\.\s+Expected version: (?<range>[^\n]+?)\s+Got: v?(?<got>\S+)/g,
];

/** Where a worktree keeps what its Node install did past `engines`: inside node_modules, so the cache keeps it with what it describes. */
const RECORD = 'node_modules/.dex-engines.json';

/** What an install past `engines` did: the setup line's note, and the owner's Node it ran on, if it took one. */
interface EngineRecord {
  note: string;
  nodePrefix?: string;
}

/** `plan` run on the Node in `prefix`: its bin after the worktree's folders on PATH (before the default Node's), mounted. */
function onNode(plan: EcosystemPlan, prefix: string): EcosystemPlan {
  const own = plan.binDirs.filter((dir) => !isAbsolute(dir));
  const bin = join(prefix, 'bin');
  return { ...plan, binDirs: [...own, bin, ...plan.binDirs.filter((dir) => isAbsolute(dir) && dir !== bin)], toolchainPaths: [...new Set([...plan.toolchainPaths, prefix])] };
}

/**
 * The install to run again after `command` of `plan` failed on a package's `engines`
 * (docs/real-repositories.md#node-engines): on the newest Node of the owner's that satisfies every
 * range the failure names, else on the same Node with the manager's flag that only warns. Undefined
 * for any other failure.
 */
export function engineRetry(plan: EcosystemPlan, command: string, output: string, nodes: () => OwnerNode[] = ownerNodes): { plan: EcosystemPlan; command: string; record: EngineRecord } | undefined {
  const failure = ENGINE_FAILURE[plan.ecosystem];
  if (!failure?.failed.test(output)) return undefined;
  const asked = ASKED.flatMap((pattern) => [...output.matchAll(pattern)].map((m) => m.groups!));
  const ranges = [...new Set(asked.map((a) => a.range))];
  const by = [...new Set(asked.map((a) => a.by))].join(', ');
  const range = ranges.join(' and ') || 'a newer version';
  const chosen = ranges.length ? nodeSatisfying(nodes(), ranges) : undefined;
  if (chosen) return { plan: onNode(plan, chosen.prefix), command, record: { note: engineNote(range, by, `${chosen.version} (${chosen.manager})`), nodePrefix: chosen.prefix } };
  const got = asked[0]?.got ?? 'this Node';
  return { plan, command: `${command} ${failure.flag}`, record: { note: `${engineNote(range, by, got)}: ${failure.flag}` } };
}

/** Keeps `record` in the worktree that was just installed, for the cache to carry to the next worktree. */
export async function writeEngineRecord(worktree: string, record: EngineRecord): Promise<void> {
  await mkdir(join(worktree, 'node_modules'), { recursive: true });
  await writeFile(join(worktree, RECORD), `${JSON.stringify(record)}\n`);
}

/** What the worktree's Node dependencies were installed past, as installed, restored or copied: the plan to record and the setup line's note. */
export function recordedEngines(plan: EcosystemPlan, worktree: string): { plan: EcosystemPlan; note?: string } {
  const record = readRecord<EngineRecord>(join(worktree, RECORD));
  const prefix = record.nodePrefix && existsSync(join(record.nodePrefix, 'bin', 'node')) ? record.nodePrefix : undefined;
  return { plan: prefix ? onNode(plan, prefix) : plan, note: typeof record.note === 'string' ? record.note : undefined };
}
