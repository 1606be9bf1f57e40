# Runs "$@" (Maven or Gradle fetching a project's dependencies) able to reach the repositories
# from dex's sandbox (docs/real-repositories.md#maven-and-gradle). Java reads neither HTTPS_PROXY
# nor a PEM bundle: the proxy becomes Java's system properties in MAVEN_OPTS and GRADLE_OPTS (and,
# for Maven 3.9's own transport, which ignores those, a <proxy> of the settings file), and the
# machine's CAs (SSL_CERT_FILE: dex's bundle) a PKCS12 trust store. The wrapper's own download
# (wget or curl) reads the proxy's variables; wget is told the bundle.
# With DEX_MAVEN_SETTINGS_FILE set, Maven's settings are written there: the proxy and
# DEX_MAVEN_MIRRORS (the owner's mirrors, nothing else of the owner's settings). With
# GRADLE_USER_HOME set, the same properties go into its gradle.properties (`systemProp.…`), which
# Gradle hands the build's own JVM too, for this run only.
scratch=$(mktemp -d) || exit 1
opts=''
proxy=${HTTPS_PROXY:-${https_proxy:-}}
if [ -n "$proxy" ]; then
  address=${proxy#*://}
  address=${address##*@}
  address=${address%%/*}
  host=${address%:*}
  port=${address##*:}
  [ "$port" = "$address" ] && port=80
  direct=$(printf '%s' "${NO_PROXY:-${no_proxy:-}}" | tr ', ' '\n\n' | sed -e '/^$/d' -e 's/^\./*./' | paste -sd '|' -)
  opts="-Dhttps.proxyHost=$host -Dhttps.proxyPort=$port -Dhttp.proxyHost=$host -Dhttp.proxyPort=$port -Dhttp.nonProxyHosts=$direct"
fi
if [ -n "${SSL_CERT_FILE:-}" ] && [ -r "$SSL_CERT_FILE" ]; then
  printf '%s' "$DEX_JAVA_TRUST_STORE" >"$scratch/trust-store.java"
  if java "$scratch/trust-store.java" "$SSL_CERT_FILE" "$scratch/trust.p12" dex-trust; then
    opts="$opts -Djavax.net.ssl.trustStore=$scratch/trust.p12 -Djavax.net.ssl.trustStoreType=PKCS12 -Djavax.net.ssl.trustStorePassword=dex-trust"
  else
    echo "dex: no Java trust store could be made of $SSL_CERT_FILE: Java's own CAs are used" >&2
  fi
  printf 'ca_certificate = %s\n' "$SSL_CERT_FILE" >"$scratch/wgetrc"
  export WGETRC="$scratch/wgetrc"
fi
if [ -n "${DEX_MAVEN_SETTINGS_FILE:-}" ]; then
  mkdir -p "$(dirname "$DEX_MAVEN_SETTINGS_FILE")" || exit 1
  {
    echo '<?xml version="1.0" encoding="UTF-8"?>'
    echo "<!-- Written by dex's setup: its sandbox's proxy and the owner's mirrors, no credentials. -->"
    echo '<settings>'
    if [ -n "$proxy" ]; then
      echo '  <proxies>'
      for protocol in https http; do
        printf '    <proxy><id>dex-%s</id><protocol>%s</protocol><host>%s</host><port>%s</port><nonProxyHosts>%s</nonProxyHosts></proxy>\n' "$protocol" "$protocol" "$host" "$port" "$direct"
      done
      echo '  </proxies>'
    fi
    printf '%s' "${DEX_MAVEN_MIRRORS:-}"
    echo '</settings>'
  } >"$DEX_MAVEN_SETTINGS_FILE" || exit 1
fi
gradle_properties=''
if [ -n "${GRADLE_USER_HOME:-}" ] && [ -n "$opts" ]; then
  gradle_properties="$GRADLE_USER_HOME/gradle.properties"
  mkdir -p "$GRADLE_USER_HOME" && printf '%s\n' $opts | sed -n 's/^-D/systemProp./p' >"$gradle_properties" || exit 1
fi
export MAVEN_OPTS="${MAVEN_OPTS:-} $opts" GRADLE_OPTS="${GRADLE_OPTS:-} $opts"
unset DEX_JVM_SETUP DEX_JAVA_TRUST_STORE DEX_MAVEN_MIRRORS DEX_MAVEN_SETTINGS_FILE
"$@"
status=$?
rm -rf "$scratch" ${gradle_properties:+"$gradle_properties"}
exit $status
