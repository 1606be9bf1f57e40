import type { ActivityDeps } from '../deps';
import { createPromptActivities } from './answer-prompt';
import { createSheetChainActivities } from './sheet-chain';
import { createSheetCommandActivities } from './sheet-command';

/** The activities of sheet statements (shell commands and one-shot prompts), and of a sheet's chain. */
export const createSheetActivities = (deps: ActivityDeps) => ({
  ...createSheetCommandActivities(deps),
  ...createPromptActivities(deps),
  ...createSheetChainActivities(deps),
});
