import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { present, readText, type EcosystemPlan } from '../ecosystem-plan';

/** Where setup runs the project's `configure`: its Makefile and config.h are made there, never over the project's own files. */
export const CONFIGURE_BUILD = '.dex/configure-build';

/** The line setup runs: the project's own `configure`, from the build folder (autoconf's and most hand-written scripts build out of the source tree). */
export const CONFIGURE = `mkdir -p ${CONFIGURE_BUILD} && cd ${CONFIGURE_BUILD} && ../../configure`;

/** The makefiles `make` reads, in the order it looks for them. */
const MAKEFILES = ['GNUmakefile', 'makefile', 'Makefile'];
/** A rule's targets: `check:`, `test check: all`, `check::`; never `test := …`. */
const RULE = /^([\w.%/-]+(?:[ \t]+[\w.%/-]+)*)[ \t]*::?(?!=)/gm;

/** The test target a makefile's text defines: `check` (GNU's name for it) before `test`; undefined when it has neither. */
export function makeTestTarget(text: string): 'check' | 'test' | undefined {
  const targets = new Set([...text.matchAll(RULE)].flatMap((m) => m[1].split(/[ \t]+/)));
  return targets.has('check') ? 'check' : targets.has('test') ? 'test' : undefined;
}

/** The text of the makefile `make` would read in `dir`, or undefined when there is none. */
export const makefileText = (dir: string): string | undefined => {
  const [first] = present(dir, MAKEFILES);
  return first === undefined ? undefined : readText(join(dir, first));
};

/**
 * The plan of a project with its own `configure` script and no CMake or meson build
 * (docs/real-repositories.md#c-and-c): setup runs it in {@link CONFIGURE_BUILD} with the machine's
 * compilers and libraries (a missing one fails it with `configure: error: …`); verify then runs
 * the Makefile it made there. Nothing is downloaded, so nothing is cached. A project with only
 * `configure.ac` needs autoreconf first, which is the owner's to run: it has no plan.
 */
export function configurePlan(dir: string): EcosystemPlan | undefined {
  if (!existsSync(join(dir, 'configure'))) return undefined;
  return {
    ecosystem: 'configure',
    command: CONFIGURE,
    inputs: present(dir, ['configure', 'configure.ac', 'Makefile.in', 'Makefile.am']),
    outputs: [],
    scratch: [CONFIGURE_BUILD],
    hosts: [],
    toolchain: ['cc --version', 'make --version'],
    setupEnv: {},
    commandEnv: {},
    binDirs: [],
    toolchainPaths: [],
  };
}
