/** How many of the latest steps a status keeps when not told otherwise. @default 20 */
const RECENT_STEPS = 20;

/** The latest steps of a run, numbered, so a watcher that polls now and then misses none. */
export class RecentSteps {
  private steps: { seq: number; text: string }[] = [];
  private seq = 0;

  constructor(private readonly keep = RECENT_STEPS) {}

  add(text: string): void {
    this.steps = [...this.steps.slice(-(this.keep - 1)), { seq: ++this.seq, text }];
  }

  list(): { seq: number; text: string }[] {
    return this.steps;
  }
}
