import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { completionTurn, toolTurn } from '../../support/model/cassette-builder';
import { runDex, type DexRun } from '../../support/env/dex-cli';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { sampleRepo } from '../../support/env/dev-server-env';

/** The turns that fix `sum` for task `task`. */
const fixSum = (task: string) => [
  toolTurn(task, ['edit_file', { path: 'src/math.js', old_string: 'return a - b;', new_string: 'return a + b;' }]),
  completionTurn(task, { status: 'complete', summary: 'sum adds' }),
];

// Two people's commands on one host: each has its own key, and a shared fake model records which key each request carried.
const dex = useDexEnvironment({ server: 'dev', cassette: [...fixSum('fix-sum-a'), ...fixSum('fix-sum-b')] });

describe('two dex task commands on one host', () => {
  it("each run's model calls carry its own command's key, and the first command's exit leaves the second's verify alone", { timeout: 180_000 }, async () => {
    const home = mkdtempSync(join(tmpdir(), 'dex-two-home-'));
    const env = (key: string): NodeJS.ProcessEnv => ({
      TEMPORAL_ADDRESS: dex.env.address,
      DEX_HOME: home,
      ANTHROPIC_API_KEY: key,
      ANTHROPIC_BASE_URL: dex.fake.url,
    });
    const repoA = sampleRepo();
    const repoB = sampleRepo();
    // B's verify outlasts A's whole run, so A's command (and its worker) ends while B verifies.
    writeFileSync(join(repoB, 'dex.config.yaml'), 'verify:\n  - sleep 8 && node --test\n');
    let aEndedAt = 0;
    const [a, b] = await Promise.all([
      runDex(['task', 'Fix sum A', '--repo', repoA, '--json'], { env: env('sk-ant-key-A') }).then((run: DexRun) => {
        aEndedAt = Date.now();
        return run;
      }),
      runDex(['task', 'Fix sum B', '--repo', repoB, '--json'], { env: env('sk-ant-key-B') }),
    ]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);

    // The SDK sends the key as a bearer token (older versions: x-api-key).
    const keyOf = (h: Record<string, unknown>) => String(h['x-api-key'] ?? h.authorization).replace(/^Bearer /, '');
    const keysOf = (task: string) => [...new Set(dex.requestsFor(task).map((r) => keyOf(r.headers)))];
    expect(keysOf('fix-sum-a')).toEqual(['sk-ant-key-A']);
    expect(keysOf('fix-sum-b')).toEqual(['sk-ant-key-B']);

    const idB = JSON.parse(b.stdout).workflowId as string;
    const events = (await dex.client.workflow.getHandle(idB).fetchHistory()).events ?? [];
    const verifyIds = new Set(
      events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'verify').map((e) => String(e.eventId)),
    );
    const verifyStarts = events.filter((e) => e.activityTaskStartedEventAttributes && verifyIds.has(String(e.activityTaskStartedEventAttributes.scheduledEventId)));
    expect(verifyStarts.map((e) => e.activityTaskStartedEventAttributes?.attempt)).toEqual([1]);
    const verifyDone = events.find((e) => e.activityTaskCompletedEventAttributes && verifyIds.has(String(e.activityTaskCompletedEventAttributes.scheduledEventId)));
    // A's command had ended (its worker shut down) before B's verify finished: B's ran once, undisturbed.
    expect(aEndedAt).toBeLessThan(Number(verifyDone?.eventTime?.seconds) * 1000);
  });
});
