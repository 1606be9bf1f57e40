/**
 * The commands that answer a run waiting for a person, written once for every view that shows
 * them: `dex status`, `dex list` and the Web UI's details (docs/interfaces.md#people-in-the-loop).
 * Pure: the workflows' details use it too.
 */

/** The stock CLI command that sends `signal` with `payload` to `workflowId`. */
const stockSignal = (workflowId: string, signal: string, payload: object): string =>
  `temporal workflow signal --workflow-id ${workflowId} --name ${signal} --input '${JSON.stringify(payload)}'`;

/** How a run waiting at `gate` is answered: with dex, and with the stock Temporal CLI. */
interface Answers {
  dex: string[];
  temporal: string[];
}

/** The commands that answer `workflowId` waiting at `gate` (the `budget` gate: with a new budget; `choose`: with an attempt, docs/attempts.md#the-choose-gate). */
export function answersFor(workflowId: string, gate: string): Answers {
  if (gate === 'choose') {
    return {
      dex: [`dex approve ${workflowId}`, `dex choose ${workflowId} ATTEMPT`, `dex reject ${workflowId} --reason "…"`],
      temporal: [stockSignal(workflowId, 'approve', {}), stockSignal(workflowId, 'approve', { choice: 'B' }), stockSignal(workflowId, 'reject', { reason: 'why' })],
    };
  }
  if (gate === 'budget') {
    return {
      dex: [`dex approve ${workflowId} --budget-usd N`, `dex reject ${workflowId} --reason "…"`],
      temporal: [stockSignal(workflowId, 'approve', { budgetUsd: 1 }), stockSignal(workflowId, 'reject', { reason: 'why' })],
    };
  }
  return {
    dex: [`dex approve ${workflowId} --note "…"`, `dex reject ${workflowId} --reason "…"`],
    temporal: [stockSignal(workflowId, 'approve', { note: 'ok' }), stockSignal(workflowId, 'reject', { reason: 'why' })],
  };
}
