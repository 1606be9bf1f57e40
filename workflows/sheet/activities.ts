import { proxyActivities } from '@temporalio/workflow';
import type { DexActivities } from '../../activities';
import { llmPolicy, storePolicy, toolPolicy } from '../run/policies';
import { summarized } from '../run/summarized';

/** The activities of a sheet's statements, on the host that holds the sheet's folder and store; built once per run. */
export function sheetActivities(hostQueue: string) {
  const on = { taskQueue: hostQueue };
  const { runSheetCommand } = proxyActivities<DexActivities>({ ...toolPolicy, ...on });
  const { answerPrompt } = proxyActivities<DexActivities>({ ...llmPolicy, ...on });
  const { keepSheetChunk, sheetChainState } = proxyActivities<DexActivities>({ ...storePolicy, ...on });
  return summarized({ runSheetCommand, answerPrompt, keepSheetChunk, sheetChainState });
}

/** The activities of a sheet run, as its statements call them. */
export type SheetActivities = ReturnType<typeof sheetActivities>;
