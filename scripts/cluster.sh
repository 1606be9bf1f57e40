#!/usr/bin/env bash
# The cluster test bed: PostgreSQL + the real Temporal server on 127.0.0.1 (scripts/cluster.ts).
#   scripts/cluster.sh up       # prints TEMPORAL_ADDRESS=127.0.0.1:17233
#   scripts/cluster.sh status
#   scripts/cluster.sh down     # stops both and removes the bed's folder
set -euo pipefail
cd "$(dirname "$0")/.."
exec node --import tsx scripts/cluster.ts "$@"
