import { parseOptionsOnly, type Output } from '../cli-context';
import { renderCleanReport, type CleanReport } from '../render/clean-report';
import { connectSaying } from '../run/slow-wait';
import { readSettings } from '../settings';
import { planClean } from './clean-plan';
import { scanLeftovers } from './leftover-scan';
import { RunFates } from './run-fates';

/**
 * `dex clean [--dry-run]`: removes what ended runs left on this host — worktrees, `.base` files,
 * the branches of runs that did not complete, demo repositories — and nothing of a run still open,
 * which it asks the Temporal server about (docs/interfaces.md#dex-clean). Exit 0, or 1 when
 * something could not be removed.
 */
export async function cleanCommand(argv: string[], out: Output): Promise<number> {
  const values = parseOptionsOnly(argv, 'clean');
  const dryRun = values['dry-run'] ?? false;
  const settings = readSettings();
  // Connected first: without the server's word on which runs are open, nothing goes.
  const conns = await connectSaying(settings, out.info);
  try {
    const scan = scanLeftovers(settings.dexHome);
    const plan = await planClean(scan, new RunFates(conns.client, settings.namespace));
    const report: CleanReport = { dryRun, leftovers: [], kept: plan.kept, failed: [] };
    for (const removal of plan.removals) {
      try {
        if (!dryRun) await removal.remove();
        report.leftovers.push(removal.entry);
      } catch (err) {
        report.failed.push({ ...removal.entry, error: (err instanceof Error ? err.message : String(err)).split('\n')[0] });
      }
    }
    out.result(renderCleanReport(report), report);
    return report.failed.length ? 1 : 0;
  } finally {
    await conns.close();
  }
}
