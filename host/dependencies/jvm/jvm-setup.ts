import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * jvm-setup.sh and trust-store.java, beside this file, read once and handed to the sandbox in the
 * environment (docs/real-repositories.md#maven-and-gradle): they tell Java the proxy and the
 * machine's CAs, which it reads from no variable of its own.
 */
const [SCRIPT, TRUST_STORE] = ['jvm-setup.sh', 'trust-store.java'].map((name) => readFileSync(join(__dirname, name), 'utf8'));

/** What setup's command needs in its environment to run {@link withJvmSetup}. */
export const JVM_SETUP_ENV: Readonly<Record<string, string>> = { DEX_JVM_SETUP: SCRIPT, DEX_JAVA_TRUST_STORE: TRUST_STORE };

/** A hash of the two files: part of the cache key, so a new version of them fetches afresh. */
const JVM_SETUP_ID = createHash('sha256').update(SCRIPT).update(TRUST_STORE).digest('hex').slice(0, 12);

/**
 * The least processes (threads count) a JVM build's commands get: Maven's JVM, Surefire's or Gradle's
 * forks and a suite's own threads pass the sandbox's default 256, and a thread a JVM cannot start
 * hangs the suite (jsoup's did, to verify's timeout). Still a bound for a runaway.
 */
export const JVM_PROCESSES = 4096;

/** `command` (Maven's or Gradle's, with its arguments) run by jvm-setup.sh. */
export const withJvmSetup = (command: string): string => `sh -c "$DEX_JVM_SETUP" jvm-setup ${command}`;

/** The cache key's part for what a plan hands the sandbox: the setup files, and `extra` (the settings setup writes). */
export const jvmSetupVersion = (extra = ''): string => `echo jvm-setup ${JVM_SETUP_ID} ${createHash('sha256').update(extra).digest('hex').slice(0, 12)}`;
