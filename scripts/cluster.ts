/**
 * `scripts/cluster.sh up|down|status`: the cluster test bed (docs/production.md#the-cluster-test-bed).
 * Bad input exits 2 with one line; a part that fails to start exits 1 naming its log.
 */
import { InvalidInput } from '../core/run/invalid-input';
import { down, status, up } from './cluster/bed';

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (rest.length || !command || !['up', 'down', 'status'].includes(command)) {
    console.error('usage: scripts/cluster.sh up|down|status');
    return 2;
  }
  const log = (line: string) => console.error(line);
  if (command === 'up') {
    const state = await up(log);
    console.log(`TEMPORAL_ADDRESS=${state.address}`);
  } else if (command === 'down') {
    await down(log);
  } else {
    console.log(status().join('\n'));
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`cluster: ${(err as Error).message}`);
    process.exit(err instanceof InvalidInput ? 2 : 1);
  },
);
