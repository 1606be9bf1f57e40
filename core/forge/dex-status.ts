/**
 * dex's commit status on a pull request's head (docs/forge-triggers.md#dex-on-the-pull-request): its
 * name, and what each state of a landing shows. Pure: the landing decides, a forge activity sets it.
 */

/** The status's context on the forge: the landing's own reading of the checks leaves it out. */
export const DEX_STATUS_CONTEXT = 'dex';

/** One state of the `dex` status: GitHub's states, a line saying what dex does or waits for, and where the run is seen. */
export interface DexStatus {
  state: 'pending' | 'success' | 'failure' | 'error';
  description: string;
  url?: string;
}
