/** The weights a task may have (docs/interfaces.md#files). */
export const WEIGHTS = ['trivial', 'small', 'medium', 'large'] as const;
/** A task's weight: how many phases it goes through. */
export type Weight = (typeof WEIGHTS)[number];
