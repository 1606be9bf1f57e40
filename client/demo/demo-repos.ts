/**
 * The sample repositories `dex demo` makes in the temporary folder. Each is recorded under
 * `$DEX_HOME/demos/` as it is made, so `dex clean` finds them, and only them: it never guesses
 * at temporary folders by their names (docs/interfaces.md#dex-clean).
 */
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, isAbsolute, join } from 'node:path';
import { ownerGone, ownerTag } from '../../host/process-owner';

/** What the temporary folder of every demo repository is named from. */
const DEMO_FOLDER_PREFIX = 'dex-demo-';
/** The sample repository's folder in it (its name is what ids and `DexRepo` show). */
const SAMPLE_REPO_NAME = 'math';

/** A demo repository dex recorded. */
export interface DemoRepo {
  /** The temporary folder made for it, removed whole. */
  folder: string;
  /** The repository in that folder, as runs name it. */
  repo: string;
  /** The record under `$DEX_HOME/demos/`. */
  record: string;
  /** The `dex demo` that made it is still running. */
  demoRunning: boolean;
  /** The folder is gone already (a reboot emptied the temporary folder): only the record is left. */
  gone: boolean;
}

const demosDir = (dexHome: string): string => join(dexHome, 'demos');

/** Makes a new temporary folder for a demo's repository and records it; returns where the repository goes. */
export function newDemoRepoPath(dexHome: string): string {
  const folder = mkdtempSync(join(tmpdir(), DEMO_FOLDER_PREFIX));
  mkdirSync(demosDir(dexHome), { recursive: true });
  // Named by the process that made it, so a demo still running keeps its repository.
  writeFileSync(join(demosDir(dexHome), `${ownerTag()}.json`), `${JSON.stringify({ folder })}\n`);
  return join(folder, SAMPLE_REPO_NAME);
}

/** The folder a record names, when it is one a demo made: an absolute `dex-demo-*` path, never anything else. */
function recordedFolder(record: string): string | undefined {
  try {
    const { folder } = JSON.parse(readFileSync(record, 'utf8')) as { folder?: unknown };
    if (typeof folder !== 'string' || !isAbsolute(folder) || folder.split('/').includes('..')) return undefined;
    return basename(folder).startsWith(DEMO_FOLDER_PREFIX) ? folder : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `path` is a real folder (not a link to one). */
function isFolder(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Every demo repository recorded under `dexHome`. */
export function recordedDemoRepos(dexHome: string): DemoRepo[] {
  let names: string[];
  try {
    names = readdirSync(demosDir(dexHome)).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const record = join(demosDir(dexHome), name);
    const folder = recordedFolder(record);
    if (!folder) return [];
    const demoRunning = !ownerGone(name.slice(0, -'.json'.length));
    return [{ folder, repo: join(folder, SAMPLE_REPO_NAME), record, demoRunning, gone: !isFolder(folder) }];
  });
}

/** Removes a demo's folder and its record. */
export function removeDemoRepo(demo: DemoRepo): void {
  if (!demo.gone) rmSync(demo.folder, { recursive: true, force: true });
  rmSync(demo.record, { force: true });
}
