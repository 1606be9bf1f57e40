import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installFailed, telling } from '../../../host/dependencies/setup-failed';
import type { EcosystemPlan } from '../../../host/dependencies/ecosystem-plan';

/** A real install's failed output, captured on a tiny project (test/fixtures/setup-output/). */
const output = (name: string) => readFileSync(join(__dirname, '..', '..', 'fixtures', 'setup-output', name), 'utf8');

describe("a failed setup's one line", () => {
  it("is the line that explains the failure, not the runtime's version banner that ends the output", () => {
    const corepack = output('corepack-signature.txt');
    expect(corepack.trim().split('\n').at(-1)).toBe('Node.js v20.20.2');
    expect(telling(corepack)).toBe('Error: No compatible signature found in package metadata');
  });

  it('is a TLS certificate error however deep in the output it is', () => {
    expect(telling(output('uv-certificate.txt'))).toBe('error: Failed to fetch: https://pypi.org/simple/idna/ (invalid peer certificate: UnknownIssuer)');
    expect(telling(output('npm-certificate.txt'))).toBe('npm error request to https://registry.npmjs.org/is-odd failed, reason: self-signed certificate in certificate chain');
    expect(telling('Could not fetch URL https://pypi.org/simple/x/: There was a problem confirming the ssl certificate: [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local issuer certificate (_ssl.c:1006) - skipping\nERROR: No matching distribution found for x\n')).toBe('ERROR: No matching distribution found for x (certificate verify failed: unable to get local issuer certificate)');
  });

  // pnpm sets its code apart with thin spaces: a line's spaces become one.
  it("is pnpm's coded error, pip's ERROR, cargo's error: line, and never npm's pointer to its log", () => {
    expect(telling(output('pnpm-frozen-lockfile.txt'))).toMatch(/^ERR_PNPM_OUTDATED_LOCKFILE Cannot install with "frozen-lockfile" because pnpm-lock.yaml is not up to date/);
    expect(telling(output('pip-no-version.txt'))).toBe('ERROR: Could not find a version that satisfies the requirement dex-no-such-package-xyz==1.0 (from versions: none)');
    expect(telling(output('cargo-locked.txt'))).toBe('error: cannot update the lock file /tmp/p/rs-fail/Cargo.lock because --locked was passed to prevent this');
    expect(telling('npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/nope\nnpm error A complete log of this run can be found in: /x.log\n')).toBe('npm error 404 Not Found - GET https://registry.npmjs.org/nope');
    expect(telling('just the last line\n')).toBe('just the last line');
    // uv killed after its install list: the line dex's setup script says, never a `+ name==version` of the list.
    expect(telling('Installed 32 packages in 2.52s\n + pytest==9.0.2\n + pyyaml==6.0.3\n +\nuv was killed by SIGABRT\n')).toBe('uv was killed by SIGABRT');
    expect(telling('Installed 32 packages in 2.52s\n + pytest==9.0.2\n +\n')).toBe('Installed 32 packages in 2.52s');
  });

  it("is the error inside pip's failed build, not the `error: subprocess-exited-with-error` around it", () => {
    expect(telling(output('pip-build-failed.txt'))).toBe('ERROR: Could not find a version that satisfies the requirement setuptools>=40.8.0 (from versions: none)');
  });

  it('names the command, how it ended, where it could reach, and the cause', () => {
    const plan = { ecosystem: 'pnpm', command: 'corepack pnpm install --frozen-lockfile', hosts: ['registry.npmjs.org'] } as EcosystemPlan;
    const run = { exitCode: 1, timedOut: false, output: output('corepack-signature.txt'), durationMs: 10 } as Parameters<typeof installFailed>[1];
    expect(installFailed(plan, run, undefined, { mode: 'bwrap' } as Parameters<typeof installFailed>[3]).message).toBe(
      'setup failed: pnpm `corepack pnpm install --frozen-lockfile` exited 1 (network only to registry.npmjs.org): Error: No compatible signature found in package metadata',
    );
  });

  it("is Maven's finding, not its `Failed to execute goal … :` heading: an enforcer rule, what it could not get, javac's error, Java's certificate problem", () => {
    expect(telling(output('maven-enforcer.txt'))).toBe('[ERROR] Detected Maven Version: 3.8.7 is not in the allowed range [3.9,).');
    const unresolvable = '[ERROR] [ERROR] Some problems were encountered while processing the POMs:\n[ERROR] Unresolveable build extension: Plugin org.sonatype.central:central-publishing-maven-plugin:0.7.0 or one of its dependencies could not be resolved: Unknown host repo.maven.apache.org\n';
    expect(telling(unresolvable)).toMatch(/^\[ERROR\] Unresolveable build extension: .* could not be resolved/);
    expect(telling('[ERROR] COMPILATION ERROR :\n[ERROR] /tmp/p/a/src/main/java/A.java:[18,15] cannot access java.io.IOException\n')).toBe('[ERROR] /tmp/p/a/src/main/java/A.java:[18,15] cannot access java.io.IOException');
    const pkix = '[ERROR] Failed to execute goal on project a: Could not resolve dependencies for project g:a:jar:1: Failed to collect dependencies at org.junit.jupiter:junit-jupiter:jar:5.10.2: Failed to read artifact descriptor for org.junit.jupiter:junit-jupiter:jar:5.10.2: Could not transfer artifact org.junit.jupiter:junit-jupiter:pom:5.10.2 from/to company (https://127.0.0.1:4443/maven2): PKIX path building failed: sun.security.provider.certpath.SunCertPathBuilderException: unable to find valid certification path to requested target\n';
    expect(telling(pkix)).toMatch(/^\[ERROR\] Failed to execute goal on project a: Could not resolve dependencies .* \(PKIX path building failed\)$/);
  });
});
