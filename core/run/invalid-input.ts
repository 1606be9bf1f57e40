/**
 * Input that cannot run (a bad file, option or setting); the message names what is wrong. The
 * CLI exits 2 on it, having started nothing; an activity turns it into a non-retryable failure.
 */
export class InvalidInput extends Error {
  override name = 'InvalidInput';
}
