import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { present, readText, type EcosystemPlan } from '../ecosystem-plan';
import { buildFiles, isDocsOption, isTestOption } from './native-files';

/** The build folder setup configures and verify's `meson test` builds in: scratch, never cached, never committed. */
export const MESON_BUILD = '.dex/meson-build';

/** The files meson reads its project's options from (`meson.options` since meson 1.1). */
const OPTION_FILES = ['meson_options.txt', 'meson.options'];
/** `option('name', type : 'boolean', …)`. */
const OPTION = /\boption\s*\(\s*'([^']+)'([^)]*)\)/g;
/** `test('name', …)`: a test registered with `meson test`, at the start of a statement. */
const REGISTERS_TESTS = /^\s*test\s*\(/m;

const mesonFiles = (dir: string): string[] => buildFiles(dir, 'meson.build', ['meson.build']);

/** True when the project's meson.build files register a test. */
export const mesonRegistersTests = (dir: string): boolean => mesonFiles(dir).some((file) => REGISTERS_TESTS.test(readText(join(dir, file)) ?? ''));

/** The line that configures the meson project at `dir` in {@link MESON_BUILD}: each boolean option of its own that builds its tests (`tests`) on, its documentation's off. */
export function mesonSetup(dir: string): string {
  const options = present(dir, OPTION_FILES).flatMap((file) => [...(readText(join(dir, file)) ?? '').matchAll(OPTION)]);
  const booleans = [...new Set(options.filter(([, , rest]) => /\btype\s*:\s*'boolean'/.test(rest)).map(([, name]) => name))];
  const settings = [...booleans.filter(isTestOption).map((name) => `-D${name}=true`), ...booleans.filter(isDocsOption).map((name) => `-D${name}=false`)];
  return ['meson setup', MESON_BUILD, ...settings].join(' ');
}

/**
 * The meson plan of `dir` (a `meson.build` at the root, no CMakeLists.txt; docs/real-repositories.md#c-and-c):
 * setup configures the build folder with the machine's compilers and libraries (a subproject's
 * wrap it would download fails it: there is no network); `meson test` builds and runs the tests.
 */
export function mesonPlan(dir: string): EcosystemPlan | undefined {
  if (!existsSync(join(dir, 'meson.build'))) return undefined;
  return {
    ecosystem: 'meson',
    command: mesonSetup(dir),
    inputs: [...mesonFiles(dir), ...present(dir, OPTION_FILES)],
    outputs: [],
    scratch: [MESON_BUILD],
    hosts: [],
    toolchain: ['meson --version', 'cc --version', 'c++ --version'],
    setupEnv: {},
    commandEnv: {},
    binDirs: [],
    toolchainPaths: [],
  };
}
