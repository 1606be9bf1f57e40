import { lstat, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Rewrites a Python virtual environment copied from `from` to `to`: its scripts' `#!` lines and
 * activate files name the folder it was made in. The interpreter itself is a link to the system's
 * and the packages hold no absolute paths, so the scripts and `pyvenv.cfg` are all there is.
 */
export async function relocateVenv(venv: string, from: string, to: string): Promise<void> {
  const bin = join(venv, 'bin');
  const names = await readdir(bin).catch(() => [] as string[]);
  const files = [...names.map((name) => join(bin, name)), join(venv, 'pyvenv.cfg')];
  for (const file of files) {
    const info = await lstat(file).catch(() => undefined);
    if (!info?.isFile() || info.size > 1024 * 1024) continue;
    const content = await readFile(file);
    // Binaries (a copied interpreter) stay as they are.
    if (content.subarray(0, 8192).includes(0)) continue;
    const text = content.toString('utf8');
    if (text.includes(from)) await writeFile(file, text.split(from).join(to));
  }
}
