import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The program `name` in the first folder of the process's PATH that has it (not resolved: rustup's proxies dispatch on their own name). */
export function findOnPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}
