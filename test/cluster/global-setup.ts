import { ensureTemporalCli } from '../../client/toolchain/toolchain';
import { ensureServerTools, postgresBin } from '../../scripts/cluster/tools';

/** Installs (once, into the tool cache outside the clone) the parts the cluster suite runs, before any file's timer starts. */
export default function setup(): void {
  const log = (line: string) => console.log(line);
  ensureTemporalCli(log);
  ensureServerTools(log);
  postgresBin();
}
