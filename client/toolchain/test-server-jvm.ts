/**
 * How dex starts the Java time-skipping test server's JVM (docs/performance.md#the-test-servers-jvm).
 * A replay or a time-skipping test runs the server for seconds: the JVM's start and its JIT were
 * most of its CPU (3.3 s a server over the suite). C1 only and the serial collector, and a
 * class-data archive made once per install, halve it: 8.4 → 4.3 s of CPU over a file's five servers.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, portOpen } from '../../host/local-ports';

/** The archive's file in the install's folder; the wrapper uses it only when it is there. */
const ARCHIVE = 'classes.jsa';
/** C1 only and the serial collector: a short-lived server gains nothing from C2 or parallel GC threads. */
const JVM_FLAGS = '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC';

// The SDK starts the executable as `<path> <port> --enable-time-skipping`; `exec` makes the JVM
// the process the SDK stops, so no orphaned server outlives a test run. An archive the JVM cannot
// use (another JDK, a changed lib/) is skipped silently: the server starts as it would without.
export const TEST_SERVER_WRAPPER = `#!/bin/sh
dir=$(cd "$(dirname "$0")" && pwd)
if [ -f "$dir/${ARCHIVE}" ]; then
  exec java ${JVM_FLAGS} "-XX:SharedArchiveFile=$dir/${ARCHIVE}" -Xlog:cds=off -Xlog:cds+dynamic=off -cp "$dir/lib/*" io.temporal.testserver.TestServer "$@"
fi
exec java ${JVM_FLAGS} -cp "$dir/lib/*" io.temporal.testserver.TestServer "$@"
`;

/** Writes the wrapper into `dir` when it is missing or an older one (an install from before it changed). */
export function writeWrapper(dir: string): string {
  const wrapper = join(dir, 'test-server');
  if (existsSync(wrapper) && readFileSync(wrapper, 'utf8') === TEST_SERVER_WRAPPER) return wrapper;
  const partial = `${wrapper}.${process.pid}.partial`;
  writeFileSync(partial, TEST_SERVER_WRAPPER, { mode: 0o755 });
  renameSync(partial, wrapper);
  return wrapper;
}

/**
 * Makes the install's class-data archive when it has none: starts the server once with
 * `-XX:ArchiveClassesAtExit`, stops it once it listens, and keeps what the JVM wrote. A JDK that
 * cannot (before 13) or a server that does not come up leaves no archive, and no error: the
 * wrapper then starts the JVM without one.
 */
export async function ensureTestServerArchive(dir: string, log: (line: string) => void = () => {}): Promise<void> {
  const archive = join(dir, ARCHIVE);
  if (existsSync(archive)) return;
  log("making the test server's class-data archive (a few seconds, once)…");
  const partial = `${archive}.${process.pid}.partial`;
  const port = await freePort();
  const jvm = spawn('java', [`-XX:ArchiveClassesAtExit=${partial}`, ...JVM_FLAGS.split(' '), '-cp', `${dir}/lib/*`, 'io.temporal.testserver.TestServer', String(port)], {
    stdio: 'ignore',
  });
  const exited = new Promise<void>((resolve) => jvm.once('exit', () => resolve()).once('error', () => resolve()));
  try {
    if (await listening(port, exited)) {
      jvm.kill('SIGTERM'); // a normal exit: the JVM writes the archive as it goes
      await exited;
      if (existsSync(partial)) renameSync(partial, archive);
    }
  } finally {
    if (jvm.exitCode === null && jvm.signalCode === null) jvm.kill('SIGKILL');
    rmSync(partial, { force: true });
  }
}

/** Whether something takes connections on `port` within 30 s, before `gone` settles. */
async function listening(port: number, gone: Promise<void>): Promise<boolean> {
  let ended = false;
  void gone.then(() => (ended = true));
  const deadline = Date.now() + 30_000;
  while (!ended && Date.now() < deadline) {
    if (await portOpen(port)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}
