import { isSystemPath } from './bwrap-args';

/** The variables by which package managers are told which certificate authorities to trust (pip, requests, uv, OpenSSL, curl, Node). */
const CERTIFICATE_ENV = ['SSL_CERT_FILE', 'SSL_CERT_DIR', 'PIP_CERT', 'REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE', 'NODE_EXTRA_CA_CERTS'];

/**
 * The worker's own answer to "which authorities do I trust", for setup's installs: those of the
 * variables above that name a file of the system folders (/etc/ssl, /usr), which the sandbox
 * mounts. A toolchain of the owner's (a pyenv Python's pip, which trusts its own certifi bundle)
 * then trusts what the host does, as Debian's own pip would: a TLS-inspecting proxy's authority too.
 */
export function certificateEnv(from: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of CERTIFICATE_ENV) {
    const value = from[name];
    if (value && (value.startsWith('/etc/ssl/') || value === '/etc/ssl' || value.startsWith('/etc/ca-certificates') || isSystemPath(value))) env[name] = value;
  }
  return env;
}
