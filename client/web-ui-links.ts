import { EMBEDDED_UI, type Settings } from './settings';

/** The Web UI's address: TEMPORAL_UI_URL, else the embedded server's; undefined when dex cannot know it. */
function webUiBase(settings: Settings, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.TEMPORAL_UI_URL || (settings.address ? undefined : EMBEDDED_UI);
}

/** The Web UI page of a run, when dex knows where the UI is. */
export function webUiLink(settings: Settings, workflowId: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const ui = webUiBase(settings, env);
  return ui && `${ui}/namespaces/${settings.namespace}/workflows/${encodeURIComponent(workflowId)}`;
}

/**
 * A run's "User Metadata" tab: its summary and Current Details, which lead with the gate it waits
 * at and the commands that answer it; the run page opens on its history otherwise.
 */
export function webUiDetailsLink(settings: Settings, workflowId: string, runId: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const page = webUiLink(settings, workflowId, env);
  return page && `${page}/${encodeURIComponent(runId)}/metadata`;
}

/** The visibility query of the runs that wait for a person now (docs/interfaces.md#what-a-run-shows-outside-its-query). */
const WAITING_QUERY = 'DexState="waiting" AND ExecutionStatus="Running"';

/**
 * The Web UI's workflow list filtered to the runs waiting for a person: one click from `dex list`
 * to what waits (docs/webui.md). A closed run is never in it, whatever its last DexState says.
 */
export function waitingListLink(settings: Settings, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const ui = webUiBase(settings, env);
  return ui && `${ui}/namespaces/${settings.namespace}/workflows?query=${encodeURIComponent(WAITING_QUERY)}`;
}
