/** A server the SDK starts is started again only when it was too slow to answer (client/testing/test-server-start.ts). */
import { expect, it } from 'vitest';
import { startedAgainWhenSlow } from '../../../client/testing/test-server-start';

const slow = () => new Error('Failed to start ephemeral server: ephemeral server at 127.0.0.1:32941 did not start within 5s. Make sure another download isn\'t stuck');

/** A start that fails with each of `errors` in turn, then gives 'server'; counts its calls. */
function starts(errors: Error[]) {
  const calls = { n: 0 };
  const start = async () => {
    const err = errors[calls.n++];
    if (err) throw err;
    return 'server';
  };
  return { calls, start };
}

it('starts again after a start too slow to answer, up to three starts', async () => {
  const twice = starts([slow(), slow()]);
  await expect(startedAgainWhenSlow(twice.start)).resolves.toBe('server');
  expect(twice.calls.n).toBe(3);

  const always = starts([slow(), slow(), slow(), slow()]);
  await expect(startedAgainWhenSlow(always.start)).rejects.toThrow(/did not start within 5s/);
  expect(always.calls.n).toBe(3);
});

it('gives any other failure to the caller at once', async () => {
  const missing = starts([new Error('ephemeral server executable does not exist: /nowhere')]);
  await expect(startedAgainWhenSlow(missing.start)).rejects.toThrow(/does not exist/);
  expect(missing.calls.n).toBe(1);
});
