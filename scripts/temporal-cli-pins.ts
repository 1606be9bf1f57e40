// Prints the pinned Temporal CLI version and its PyPI wheels as JSON, for
// scripts/verify-temporal-cli-provenance.sh.
import { TEMPORAL_CLI_WHEELS } from '../client/toolchain/temporal-cli-wheel';
import { TEMPORAL_CLI_VERSION } from '../client/toolchain/toolchain';

console.log(JSON.stringify({ version: TEMPORAL_CLI_VERSION, ...TEMPORAL_CLI_WHEELS[TEMPORAL_CLI_VERSION] }));
