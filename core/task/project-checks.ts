/**
 * The project's own checks besides its tests (docs/real-repositories.md#checks-besides-tests): the
 * lint, typecheck and build its owner defined, each run after the tests, reported on its own, and
 * blocking only when it did not already fail on the task's base commit. Pure data and rules: the
 * host detects them (host/checks/detect-checks.ts), verify runs them, the workflow asks the base.
 */

/** One check: its name as every view shows it (`lint`, `typecheck`, `build`, `vet`, `clippy`, `ruff`, `mypy`, `flake8`) and its command. */
export interface ProjectCheck {
  name: string;
  command: string;
}

/**
 * `checks:` of `dex.config.yaml`: `false` runs none; a map turns one off (`lint: false`), gives one
 * another command (`build: npm run build:fast`), or adds one of the owner's (`format: prettier --check .`).
 */
export type ChecksConfig = false | Record<string, false | string>;

/** How one check ran in a verify. */
export interface CheckResult extends ProjectCheck {
  passed: boolean;
  /** It failed, but it fails on the base commit too: it does not block the task. */
  preExisting?: boolean;
  /** The line that says why it failed. */
  cause?: string;
}

/** The checks to run: those detected, as the config turns them off, replaces or adds to them; none with `checks: false`. */
export function resolveChecks(detected: readonly ProjectCheck[], config: ChecksConfig | undefined): ProjectCheck[] {
  if (config === false) return [];
  const given = config ?? {};
  const kept = detected.filter((c) => given[c.name] !== false).map((c) => (typeof given[c.name] === 'string' ? { ...c, command: given[c.name] as string } : c));
  const added = Object.entries(given)
    .filter((entry): entry is [string, string] => typeof entry[1] === 'string' && !detected.some((c) => c.name === entry[0]))
    .map(([name, command]) => ({ name, command }));
  return [...kept, ...added];
}

/** The checks that fail and are the task's own: they block it. */
export const blockingChecks = (checks: readonly CheckResult[] | undefined): CheckResult[] => (checks ?? []).filter((c) => !c.passed && !c.preExisting);

/** One line for every view: `lint passed · typecheck failed · build failed (fails on the base too, not blocking)`. */
export function describeChecks(checks: readonly CheckResult[]): string {
  return checks.map((c) => `${c.name} ${c.passed ? 'passed' : c.preExisting ? 'failed (fails on the base too, not blocking)' : 'failed'}`).join(' · ');
}

/** How `setup` names the checks it picked: `lint (npm run lint) · build (npm run build)`, or `none found`. */
export const describePickedChecks = (checks: readonly ProjectCheck[]): string => (checks.length ? checks.map((c) => `${c.name} (${c.command})`).join(' · ') : 'none found');
