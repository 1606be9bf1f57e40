import { lstat, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Larger files are not scripts or records dex rewrites (a copied interpreter, a wheel's data). */
const MAX_TEXT = 1024 * 1024;

/**
 * The files of a venv that may name the folder it was made in (docs/real-repositories.md#the-cache):
 * its scripts (`#!` lines, activate), `pyvenv.cfg`, and for a project installed editable the
 * small files that point at the worktree's code — `*.pth` and `*.egg-link` and `__editable__*`
 * finders at the top of site-packages, and each `*.dist-info`'s `direct_url.json` and `RECORD`.
 * Only these: a venv holds thousands of files, and a restore must stay fast.
 */
async function candidates(venv: string, from: string): Promise<string[]> {
  const list = async (dir: string) => (await readdir(dir).catch(() => [] as string[])).map((name) => join(dir, name));
  const files = [...(await list(join(venv, 'bin'))), join(venv, 'pyvenv.cfg')];
  for (const lib of await list(join(venv, 'lib'))) {
    for (const entry of await list(join(lib, 'site-packages'))) {
      const name = entry.slice(entry.lastIndexOf('/') + 1);
      if (name.endsWith('.pth') || name.endsWith('.egg-link') || (name.startsWith('__editable__') && name.endsWith('.py'))) files.push(entry);
      // A dist-info names a folder only when it was installed from one (its direct_url.json says so): then its RECORD may too.
      else if (name.endsWith('.dist-info') && (await readFile(join(entry, 'direct_url.json'), 'utf8').catch(() => '')).includes(from)) {
        files.push(join(entry, 'direct_url.json'), join(entry, 'RECORD'));
      }
    }
  }
  return files;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Rewrites a Python virtual environment made in worktree `from` and copied into worktree `to`, so
 * that it names `to` wherever it named `from`: its scripts and `pyvenv.cfg`, and the editable
 * install of the project (whose `.pth`, finder and `direct_url.json` point at the worktree's code).
 * Restored into another worktree it imports that worktree's code, never the first one's. A path
 * is replaced only whole (`/wt/task-1` not inside `/wt/task-10`). The interpreter is a link to the
 * system's and binaries are left alone.
 */
export async function relocateVenv(venv: string, from: string, to: string): Promise<void> {
  const fromUrl = pathToFileURL(from).href;
  const toUrl = pathToFileURL(to).href;
  // The path as written in text, or as a file:// URL (direct_url.json), ending where a path component ends.
  const pattern = new RegExp(`(${escape(fromUrl)}|${escape(from)})(?![\\w.+-])`, 'g');
  for (const file of await candidates(venv, from)) {
    const info = await lstat(file).catch(() => undefined);
    if (!info?.isFile() || info.size > MAX_TEXT) continue;
    const content = await readFile(file);
    if (content.subarray(0, 8192).includes(0)) continue;
    const text = content.toString('utf8');
    if (!text.includes(from)) continue;
    await writeFile(file, text.replace(pattern, (match) => (match === fromUrl ? toUrl : to)));
    // A finder's compiled copy would still name the old worktree if the rewrite kept its size within the same second.
    if (file.endsWith('.py')) {
      const cache = join(dirname(file), '__pycache__');
      for (const pyc of await readdir(cache).catch(() => [] as string[])) if (pyc.startsWith(`${basename(file, '.py')}.`)) await rm(join(cache, pyc), { force: true });
    }
  }
}
