/** A setup that failed: one line for a person (`message`), and the tail of the failing command's output. */
export class SetupFailed extends Error {
  constructor(
    message: string,
    readonly tail: string,
  ) {
    super(message);
    this.name = 'SetupFailed';
  }
}
