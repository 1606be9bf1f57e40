/**
 * Starting the Java time-skipping test server through the SDK, again when it was too slow to answer.
 * The SDK gives a server it starts 5 s to take a connection (sdk-core's ephemeral_server, not
 * configurable), then kills it. The test server's JVM answered in 0.6 s here on a quiet machine and
 * in 2.7 s beside six busy processes; with a whole CI run beside it, once not within the 5 s, and
 * `dex replay-test` failed though nothing was wrong with the recording.
 */
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { ensureTestServer, testServerDir } from '../toolchain/toolchain';
import { ensureTestServerArchive } from '../toolchain/test-server-jvm';

/** How many times a server is started before its start's failure is the caller's. */
const START_ATTEMPTS = 3;

/** `start()`'s server (any the SDK starts: the test server, the dev server), started up to three times while it fails for being too slow to answer. */
export async function startedAgainWhenSlow<T>(start: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (err) {
      if (attempt >= START_ATTEMPTS || !/did not start within/.test((err as Error).message ?? '')) throw err;
    }
  }
}

/** The time-skipping test environment on dex's copy of the test server (`dex setup`). */
export async function startTimeSkippingEnvironment(): Promise<TestWorkflowEnvironment> {
  const path = ensureTestServer();
  await ensureTestServerArchive(testServerDir());
  return startedAgainWhenSlow(() => TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path } } }));
}
