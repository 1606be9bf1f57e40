# Fetches Apache Maven from Maven Central for setup, in dex's sandbox, through its proxy with the
# machine's CAs (docs/real-repositories.md#maven-and-gradle): curl reads SSL_CERT_FILE, wget is
# told it. `releases` prints the versions Central's maven-metadata.xml of apache-maven lists, on
# one line; a version unpacks apache-maven-<version>-bin.tar.gz, checked against the .sha512
# beside it, into $DEX_DOWNLOADS/maven/apache-maven-<version>, unless it is there already.
central=https://repo.maven.apache.org/maven2/org/apache/maven/apache-maven
get() {
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --retry 2 -o "$2" "$1"
  elif command -v wget >/dev/null 2>&1; then
    wget -nv ${SSL_CERT_FILE:+"--ca-certificate=$SSL_CERT_FILE"} -O "$2" "$1"
  else
    echo "error: neither curl nor wget is on this machine" >&2
    return 1
  fi
}
if [ "$1" = releases ]; then
  xml=$(get "$central/maven-metadata.xml" -) || exit 1
  printf 'releases: %s\n' "$(printf '%s\n' "$xml" | sed -n 's:.*<version>\([^<]*\)</version>.*:\1:p' | paste -sd ' ' -)"
  exit 0
fi
version=$1
folder="$DEX_DOWNLOADS/maven/apache-maven-$version"
[ -x "$folder/bin/mvn" ] && exit 0
mkdir -p "$DEX_DOWNLOADS/maven" && scratch=$(mktemp -d "$folder.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT
url="$central/$version/apache-maven-$version-bin.tar.gz"
get "$url" "$scratch/bin.tar.gz" && get "$url.sha512" "$scratch/bin.tar.gz.sha512" || { echo "error: could not fetch $url" >&2; exit 1; }
[ "$(sha512sum "$scratch/bin.tar.gz" | cut -d' ' -f1)" = "$(cut -d' ' -f1 "$scratch/bin.tar.gz.sha512" | tr -d '\r\n')" ] || { echo "error: $url does not match its .sha512" >&2; exit 1; }
tar -xzf "$scratch/bin.tar.gz" -C "$scratch" && [ -x "$scratch/apache-maven-$version/bin/mvn" ] || { echo "error: $url holds no apache-maven-$version/bin/mvn" >&2; exit 1; }
# Two setups fetching at once: the first rename wins, and the other's copy goes with its scratch folder.
mv -T "$scratch/apache-maven-$version" "$folder" 2>/dev/null || [ -x "$folder/bin/mvn" ]
