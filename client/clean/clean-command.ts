import { parseOptionsOnly, type Output } from '../cli-context';
import { renderCleanReport, type CleanReport } from '../render/clean-report';
import { connectSaying } from '../run/slow-wait';
import { readSettings } from '../settings';
import { planClean } from './clean-plan';
import { scanLeftovers } from './leftover-scan';
import { RunFates } from './run-fates';
import { planForgeRefs } from './forge-refs';
import { checkForgeRepository } from '../fleet/forge-repo-check';
import { InvalidInput } from '../../core/run/invalid-input';

/**
 * `dex clean [--dry-run] [--repo URL|OWNER/NAME]`: removes what ended runs left on this host — worktrees, `.base` files,
 * the branches of runs that did not complete, demo repositories — and, with a forge repository, its
 * hidden refs of fleet runs that did not complete (./forge-refs.ts); nothing of a run still open,
 * which it asks the Temporal server about (docs/interfaces.md#dex-clean). Exit 0, or 1 when
 * something could not be removed.
 */
export async function cleanCommand(argv: string[], out: Output): Promise<number> {
  const values = parseOptionsOnly(argv, 'clean');
  const dryRun = values['dry-run'] ?? false;
  // A forge repository's hidden refs too: checked (token, existence) before anything is asked or removed.
  const forge = values.repo === undefined ? undefined : await checkForgeRepository(values.repo);
  if (values.repo !== undefined && !forge) throw new InvalidInput(`--repo ${values.repo}: dex clean takes a forge repository (https://HOST/OWNER/NAME or OWNER/NAME); a checkout's leftovers are cleaned without it`);
  const settings = readSettings();
  // Connected first: without the server's word on which runs are open, nothing goes.
  const conns = await connectSaying(settings, out.info);
  try {
    const scan = scanLeftovers(settings.dexHome);
    const fates = new RunFates(conns.client, settings.namespace);
    const plan = await planClean(scan, fates);
    if (forge) {
      const refs = await planForgeRefs(forge, fates, settings.dexHome);
      plan.removals.push(...refs.removals);
      plan.kept.push(...refs.kept);
    }
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
