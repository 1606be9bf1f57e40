// The forge's certificate authority, `land.pr.caFile` (docs/landing-through-prs.md#a-forge-behind-its-own-ca),
// as the worker uses it. The file is read here, on the worker, each time a forge activity or dex's
// git to the forge runs: the path travels in the workflow input (ForgeTarget, the git activities'
// input), never the certificate. What is trusted is that file's certificates with the machine's
// (the system's bundle and every file the machine names, as setup gathers them:
// host/sandbox/machine-trust.ts), since both the API client's `ca` and git's GIT_SSL_CAINFO replace
// the default roots rather than add to them.

import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from '../../core/run/failure-types';
import type { ForgeTarget } from '../../core/roadmap/pull-request-types';
import { caBundle, caSources, certificatesIn } from '../sandbox/machine-trust';

const SETTING = 'land.pr.caFile';
const DOC = 'docs/landing-through-prs.md#a-forge-behind-its-own-ca';

/**
 * Node's codes of a certificate chain that did not lead to a trusted CA: what a CA of the forge's
 * own (or a TLS-inspecting proxy's) causes. An expired certificate or a wrong name is another
 * problem, which no CA setting fixes.
 */
const UNTRUSTED_CHAIN = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'CERT_UNTRUSTED',
]);

/** True when `err`'s Node code says its certificate chain led to no CA this machine trusts. */
export const untrustedChain = (err: unknown): boolean => UNTRUSTED_CHAIN.has(String((err as { code?: unknown })?.code));

/** What is wrong with `caFile` as the forge's CA on this machine (`does not exist`, …); undefined when it holds a certificate. */
export function caFileProblem(caFile: string): string | undefined {
  if (certificatesIn(caFile).length) return undefined;
  return existsSync(caFile) ? 'holds no PEM certificate (-----BEGIN CERTIFICATE-----)' : 'does not exist';
}

/**
 * The certificates (PEM) the worker trusts for the forge: the machine's and those of `caFile`;
 * a failure without retry, naming the setting, when `caFile` holds none on this worker.
 */
export function forgeCaPem(caFile: string, env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  const problem = caFileProblem(caFile);
  if (problem) throw ApplicationFailure.create({ type: FAILURE.ForgeUntrusted, nonRetryable: true, message: `${SETTING} ${caFile} ${problem} on this worker (${DOC})` });
  return caBundle([...caSources(env, home), { from: SETTING, path: caFile }]);
}

let bundles: string | undefined;

/**
 * A file holding forgeCaPem(caFile), for git (GIT_SSL_CAINFO); undefined without a caFile. Kept in a
 * folder of dex's own (mkdtemp: nobody else can write there), named by its content so a changed
 * CA file gives a new one, removed when the process exits.
 */
export function forgeCaBundleFile(caFile: string | undefined): string | undefined {
  if (!caFile) return undefined;
  const pem = forgeCaPem(caFile);
  if (!bundles || !existsSync(bundles)) {
    const folder = mkdtempSync(join(tmpdir(), 'dex-forge-ca-'));
    if (!bundles) process.once('exit', () => rmSync(bundles!, { recursive: true, force: true }));
    bundles = folder;
  }
  const file = join(bundles, `${createHash('sha256').update(pem).digest('hex').slice(0, 24)}.pem`);
  if (!existsSync(file)) writeFileSync(file, pem, { mode: 0o644 });
  return file;
}

/**
 * The failure for `err` when it is the forge's certificate not verifying against what this worker
 * trusts (a TLS code anywhere in its causes): without retry, saying so and naming the setting.
 */
export function untrustedForge(err: unknown, target: ForgeTarget, doing: string): ApplicationFailure | undefined {
  let cause = err;
  for (let depth = 0; cause && depth < 8; depth++, cause = (cause as { cause?: unknown }).cause) {
    if (!untrustedChain(cause)) continue;
    const where = target.apiUrl ? new URL(target.apiUrl).host : 'api.github.com';
    const fix = target.caFile
      ? `not even with ${SETTING} ${target.caFile}: does that file hold the CA that signed it?`
      : `name the CA that signed it (a PEM file) in ${SETTING}`;
    return ApplicationFailure.create({
      type: FAILURE.ForgeUntrusted,
      nonRetryable: true,
      message: `could not ${doing} on ${target.owner}/${target.repo}: the certificate of ${where} is not trusted on this worker (${(cause as Error).message}): ${fix} (${DOC})`,
    });
  }
  return undefined;
}
