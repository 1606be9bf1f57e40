#!/usr/bin/env bash
# Measures the README's two commands as a new user meets them (docs/fresh-machine.md#measured):
# a fresh clone of this checkout's HEAD, with empty caches (dex's, npm's, Go's) and an empty
# DEX_HOME, each step timed, and a dated line for docs/fresh-machine.md and the README.
#
#   scripts/measure-fresh-machine.sh          # npm ci && npx dex demo, then npm test
#   scripts/measure-fresh-machine.sh demo     # npm ci && npx dex demo only
#
# On a machine shared with other work the times grow with its load: the load average is printed
# with each figure. The embedded server must be free (nothing on 127.0.0.1:7233), or the demo
# would use that one. Where it is not (another dex on the machine) and this runs as root, the
# demo runs in a network namespace of its own (`unshare -n`, a loopback only), so the tools it
# would fetch on the way, the Temporal CLI and bubblewrap, are fetched just before it, as a step
# of their own ("fetch tools"), by the same code. The server and workflow host the demo starts are
# stopped at the end.
set -euo pipefail
what=${1:-all}
case $what in demo | all) ;; *) echo "usage: $0 [demo|all]" >&2; exit 2 ;; esac
repo=$(cd "$(dirname "$0")/.." && pwd)
own_network=
if (exec 3<>/dev/tcp/127.0.0.1/7233) 2>/dev/null; then
  if [ "$(id -u)" != 0 ] || [ "$what" = all ]; then
    echo "something listens on 127.0.0.1:7233 (a dex server?): the demo would use it instead of starting its own; stop it first" >&2
    exit 2
  fi
  own_network=1
fi

work=$(mktemp -d /tmp/dex-fresh-machine.XXXXXX)
export DEX_CACHE=$work/dex-cache npm_config_cache=$work/npm-cache DEX_HOME=$work/dex-home
export GOPATH=$work/go GOMODCACHE=$work/go/pkg/mod GOCACHE=$work/go/cache
stop() {
  set +e
  # What the demo left running with this DEX_HOME: the dev server and the workflow host.
  for environ in /proc/[0-9]*/environ; do
    grep -qz "^DEX_HOME=$DEX_HOME\$" "$environ" 2>/dev/null && kill "$(basename "$(dirname "$environ")")" 2>/dev/null
  done
  sleep 1
  chmod -R u+w "$work" 2>/dev/null
  rm -rf "$work"
}
trap stop EXIT

git clone -q --no-local "$repo" "$work/dex"
cd "$work/dex"
load() { cut -d' ' -f1 /proc/loadavg; }
elapsed() { printf '%.0f' "$(bc <<<"$EPOCHREALTIME - $1")"; }
# Each output line prefixed with the seconds since the step began, so a step's parts show.
stamp() { local s=$1; while IFS= read -r line; do printf '%6.1f  %s\n' "$(bc <<<"$EPOCHREALTIME - $s")" "$line"; done; }
log=$work/../dex-fresh-machine-$(date -u +%Y%m%dT%H%M%S).log
step() { # name, command…
  local name=$1 s=$EPOCHREALTIME l0; shift; l0=$(load)
  echo "== $name (load average $l0)" | tee -a "$log"
  set +e
  "$@" 2>&1 | stamp "$s" | tee -a "$log" | tail -n 12
  local code=${PIPESTATUS[0]}
  set -e
  printf -v "t_${name//[^a-z]/_}" '%s' "$(elapsed "$s")"
  printf -v "l_${name//[^a-z]/_}" '%s' "$l0→$(load)"
  [ "$code" = 0 ] || { echo "$name failed (exit $code); its output is in $log" >&2; exit 1; }
}

bwrap_note="no system bubblewrap"; command -v bwrap >/dev/null && bwrap_note="system bubblewrap at $(command -v bwrap)"
machine="$(. /etc/os-release && echo "$PRETTY_NAME"), $(nproc) cores, Node $(node --version | tr -d v), $bwrap_note"

step "npm ci" npm ci --no-audit --no-fund --timing --logs-dir "$work/npm-logs"
# npm's own timing of the install scripts: better-sqlite3 compiles its native addon here.
sqlite=$(grep -ho '"build:run:install:node_modules/better-sqlite3":[0-9]*' "$work"/npm-logs/*timing.json 2>/dev/null | head -1 | cut -d: -f5 || true)
if [ -n "$own_network" ]; then
  step "fetch tools" node --import tsx -e "require('./client/toolchain/toolchain').ensureTemporalCli(console.log);
    require('./host/sandbox/bubblewrap-install').provisionBubblewrap(console.log)"
  step "npx dex demo" unshare -n sh -c 'ip link set lo up && exec npx dex demo'
  t_npx_dex_demo=$((t_npx_dex_demo + t_fetch_tools))
  l_npx_dex_demo="$l_fetch_tools, then $l_npx_dex_demo"
else
  step "npx dex demo" npx dex demo
fi
grep -q UNSANDBOXED "$log" && sandboxed="UNSANDBOXED" || sandboxed="sandboxed"
cli=$(grep -m1 -o 'Temporal CLI v[0-9.]* [a-z ]*\(PyPI\|go install\)' "$log" || echo "the Temporal CLI from the cache")
date=$(date -u +%F)
demo_total=$((t_npm_ci + t_npx_dex_demo))
echo
echo "On $date ($machine), a fresh clone with empty caches:"
echo "- \`npm ci && npx dex demo\`: $demo_total s, $sandboxed — npm ci $t_npm_ci s (load $l_npm_ci${sqlite:+; the better-sqlite3 compile $((sqlite / 1000)) s of it}), npx dex demo $t_npx_dex_demo s (load $l_npx_dex_demo; $cli)"
if [ "$what" = all ]; then
  step "npm test" npm test
  # vitest colours its summary even into a file: the colours go before the match.
  summary=$(sed -E 's/\x1b\[[0-9;]*m//g' "$log" | grep -E '^ *[0-9.]+ +(Test Files|Tests|Duration) ' | sed -E 's/^ *[0-9.]+ +//' | tr -s ' ' | paste -sd';' - || true)
  echo "- \`npm test\` (after the demo): $t_npm_test s (load $l_npm_test): $summary"
fi
echo "(full log: $log)"
