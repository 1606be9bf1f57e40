import { InvalidInput } from '../../core/run/invalid-input';
import { parseOptionsOnly, type Output } from '../cli-context';
import { isDexRun, listQuery, renderRunList, runRow, type RunRow } from '../render/run-list';
import { readSettings } from '../settings';
import { waitingListLink, webUiDetailsLink, webUiLink } from '../web-ui-links';
import { connectSaying } from '../run/slow-wait';

/** A visibility query naming a search attribute the namespace does not have: Temporal answers INVALID_ARGUMENT. */
const unknownAttribute = (err: unknown): boolean => /search attribute|DexState|DexRepo/i.test(err instanceof Error ? err.message : String(err));

/** `dex list [--state S] [--kind K] [--repo R] [--limit N]`: dex's runs, newest first, those waiting for a person first. */
export async function listCommand(argv: string[], out: Output): Promise<number> {
  const values = parseOptionsOnly(argv, 'list');
  const limit = values.limit === undefined ? 50 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new InvalidInput('--limit must be a positive whole number');
  const query = listQuery({ state: values.state, kind: values.kind, repo: values.repo });
  const settings = readSettings();
  const conns = await connectSaying(settings, out.info);
  try {
    const rows: RunRow[] = [];
    try {
      for await (const info of conns.client.workflow.list({ query, pageSize: Math.min(limit, 100) })) {
        if (!isDexRun(info)) continue;
        const row = runRow(info);
        // A run that waits links straight to the tab that says how to answer it.
        const webUi = row.answer ? webUiDetailsLink(settings, row.id, info.runId) : webUiLink(settings, row.id);
        rows.push(webUi ? { ...row, webUi } : row);
        if (rows.length >= limit) break;
      }
    } catch (err) {
      if (!unknownAttribute(err)) throw err;
      throw new Error(
        `the namespace ${settings.namespace} does not know dex's search attributes (--state and --repo filter on them); register them on this server first: ${(err as Error).message}`,
      );
    }
    out.result(renderRunList(rows, waitingListLink(settings)), rows);
    return 0;
  } finally {
    await conns.close();
  }
}
