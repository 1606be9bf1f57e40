/**
 * The help entries of the commands that answer a gate (`approve`, `reject`, `choose`), kept apart
 * from client/command-help.ts, whose `satisfies` checks their shape and whose table lists them in order.
 */

const TASK_OF_ROADMAP = {
  type: 'string',
  value: 'TASK',
  help: 'sent to a roadmap: the task whose gate this answers (default: the task that waits)',
} as const;

/** `dex approve`, `dex reject` and `dex choose`, in the order `dex help` lists them. */
export const GATE_HELP = {
  approve: {
    synopsis: 'dex approve ID',
    about: 'Passes the gate the run waits at.',
    options: {
      note: { type: 'string', value: 'TEXT', help: 'a note that goes into the next prompt' },
      by: { type: 'string', value: 'NAME', help: 'who approves' },
      'budget-usd': { type: 'string', value: 'N', help: 'for a run waiting in budget_exceeded: the new budget in USD' },
      task: TASK_OF_ROADMAP,
    },
  },
  reject: {
    synopsis: 'dex reject ID',
    about: 'Fails the gate the run waits at: the task ends rejected; with --retry its phase goes round again with the reason while retries last.',
    options: {
      reason: { type: 'string', value: 'TEXT', required: true, help: 'why (goes into the next prompt when the phase is retried)' },
      retry: { type: 'boolean', help: 'run the phase again with the reason as context instead of ending the task' },
      by: { type: 'string', value: 'NAME', help: 'who rejects' },
      task: TASK_OF_ROADMAP,
    },
  },
  choose: {
    synopsis: 'dex choose ID ATTEMPT',
    about:
      'Lands attempt ATTEMPT (a letter, A to H) of a best-of-N task waiting at its `choose` gate, instead of the one the evidence proposes (docs/attempts.md#the-choose-gate); exit 2 when the run waits elsewhere or ATTEMPT did not complete.',
    options: {
      by: { type: 'string', value: 'NAME', help: 'who chooses' },
      note: { type: 'string', value: 'TEXT', help: 'why, kept with the decision' },
      task: TASK_OF_ROADMAP,
    },
  },
} as const;
