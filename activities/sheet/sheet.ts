import type { ActivityDeps } from '../deps';
import { createPromptActivities } from './answer-prompt';
import { createSheetCommandActivities } from './sheet-command';

/** The activities of sheet statements: shell commands and one-shot prompts. */
export const createSheetActivities = (deps: ActivityDeps) => ({
  ...createSheetCommandActivities(deps),
  ...createPromptActivities(deps),
});
