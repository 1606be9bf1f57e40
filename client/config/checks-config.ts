/**
 * `checks:` in dex.config.yaml (docs/real-repositories.md#checks-besides-tests): the project's own
 * checks besides its tests are on by default; `checks: false` runs none, and a map turns one off
 * (`lint: false`), runs it another way (`build: npm run build:fast`), or adds one of the owner's.
 */
import type { ChecksConfig } from '../../core/task/project-checks';
import { isRecord, type Fail } from './config-section';

/** The checks setting from `raw` (the `checks` key's value), failing through `fail` with the key. */
export function parseChecksConfig(raw: unknown, fail: Fail): ChecksConfig {
  if (raw === undefined || raw === true) return {};
  if (raw === false) return false;
  if (!isRecord(raw)) fail('checks', 'must be false or a map of check name to false or a command');
  for (const [name, v] of Object.entries(raw)) {
    if (!/^[\w-]+$/.test(name)) fail(`checks.${name}`, 'is not a check name (letters, digits, - and _)');
    if (v !== false && !(typeof v === 'string' && v.trim())) fail(`checks.${name}`, 'must be false or a command');
  }
  return raw as Record<string, false | string>;
}
