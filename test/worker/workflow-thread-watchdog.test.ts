import { Worker, type WorkerOptions } from '@temporalio/worker';
import { EventEmitter } from 'node:events';
import { WorkerThreadClient } from '@temporalio/worker/lib/workflow/threaded-vm';
import { describe, expect, it } from 'vitest';
import { bundleFixture, silentLogger } from '../support/env/dev-server-env';
import { useDexEnvironment } from '../support/env/dex-environment';

// dex patches the SDK's workflow threads (patches/@temporalio+worker+*.patch): one watchdog per
// thread instead of a vm timeout (an OS thread) on every call into workflow code
// (docs/performance.md, "The workflow thread's watchdog"). A busy loop must still be caught.

describe('the workflow thread watchdog', () => {
  const dex = useDexEnvironment({ server: 'dev' });

  it('runs workflows that yield, and stops the worker with an error naming the run when one never yields', async () => {
    const { env } = dex;
    const workflowBundle = await bundleFixture('watchdog-workflows.ts');
    const taskQueue = 'watchdog';
    // The SDK honours isolateExecutionTimeout (default 5 s) without exposing it in WorkerOptions' type; 1 s keeps the test short.
    const options = { connection: env.nativeConnection, taskQueue, workflowBundle, isolateExecutionTimeout: '1s' };
    const worker = await Worker.create(options as WorkerOptions);
    const running = worker.run();
    running.catch(() => {}); // observed below

    const quick = await env.client.workflow.execute('quickWorkflow', { taskQueue, workflowId: 'quick' });
    expect(quick).toBe('ok');

    const started = Date.now();
    const busy = await env.client.workflow.start('busyWorkflow', { taskQueue, workflowId: 'busy' });
    await expect(running).rejects.toThrow(new RegExp(`(create|activate)-workflow for run ${busy.firstExecutionRunId} got no answer in 1000 ms .*never yields`));
    // The stall is seen within the timeout plus one check interval (a fifth of it), not minutes later.
    expect(Date.now() - started).toBeLessThan(4000);
    await busy.terminate('test over');
  }, 30_000);
});

/** A stand-in for the Node worker thread behind a WorkerThreadClient: it records what it is sent and answers when told. */
class FakeThread extends EventEmitter {
  posted: { requestId: bigint }[] = [];
  terminated = false;
  postMessage(message: { requestId: bigint }): void {
    this.posted.push(message);
  }
  async terminate(): Promise<number> {
    this.terminated = true;
    this.emit('exit', 1);
    return 1;
  }
  answer(output: unknown): void {
    this.emit('message', { requestId: this.posted[0].requestId, result: { type: 'ok', output } });
  }
}

/** The patched client with a watchdog of `timeoutMs` on `thread`. */
function watchedClient(thread: FakeThread, timeoutMs: number) {
  const Client = WorkerThreadClient as unknown as new (...args: unknown[]) => WorkerThreadClient & { armStallWatchdog(): void };
  const client = new Client(thread, silentLogger, undefined, timeoutMs);
  client.armStallWatchdog();
  return client;
}

const activation = { type: 'activate-workflow', runId: 'run-1', activation: {} } as never;

describe('the patched WorkerThreadClient', () => {
  it('stops a thread that answers nothing for the timeout, naming the request it holds', async () => {
    const thread = new FakeThread();
    const answer = watchedClient(thread, 100).send(activation);
    await expect(answer).rejects.toThrow('activate-workflow for run run-1 got no answer in 100 ms');
    expect(thread.terminated).toBe(true);
  });

  it('keeps a thread whose answer waited unread while this thread was blocked', async () => {
    const thread = new FakeThread();
    const answer = watchedClient(thread, 100).send(activation);
    await new Promise<void>((done) =>
      setImmediate(() => {
        // The answer arrives during the block, and is read only on the event loop's next turn, after the watchdog's check.
        setImmediate(() => thread.answer('done'));
        const until = Date.now() + 500;
        while (Date.now() < until) {
          // blocked
        }
        done();
      }),
    );
    await expect(answer).resolves.toBe('done');
    expect(thread.terminated).toBe(false);
  });
});
