import type { Info } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';

/** A fake activity context that keeps the failures tests expect out of the output. */
export function mockActivityEnv(info?: Partial<Info>): MockActivityEnvironment {
  return new MockActivityEnvironment(info, { logger: new DefaultLogger('ERROR') });
}

/** Runs activity `fn` in `env` (a fresh context when omitted), keeping its argument and result types. */
export function runActivity<A extends unknown[], R>(
  fn: (...args: A) => Promise<R>,
  args: A,
  env: MockActivityEnvironment = mockActivityEnv(),
): Promise<R> {
  return env.run(fn, ...args) as Promise<R>;
}
