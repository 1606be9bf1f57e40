import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { SANDBOX_PATH } from '../../sandbox/sandbox-env';
import { readText, type EcosystemPlan } from '../ecosystem-plan';
import { buildFiles, isDocsOption, isTestOption } from './native-files';

/** The build folder setup configures and verify builds in: the build's scratch, never cached, never committed. */
export const CMAKE_BUILD = '.dex/cmake-build';

/** Debian's googletest sources (package `googletest`): what a project's FetchContent of googletest builds instead of a download. */
const GOOGLETEST_SOURCES = '/usr/src/googletest';

/** A command that registers tests with CTest, at the start of a line (a comment's mention does not count). */
const REGISTERS_TESTS = /^\s*(enable_testing|add_test|gtest_discover_tests|gtest_add_tests|catch_discover_tests|doctest_discover_tests)\s*\(|^\s*include\s*\(\s*CTest\s*\)/im;
/** `option(NAME …)` and `cmake_dependent_option(NAME …)`. */
const OPTION = /^\s*(?:option|cmake_dependent_option)\s*\(\s*"?(\w+)/gim;
/** `FetchContent_Declare(name …)` with everything up to its closing parenthesis. */
const FETCH_DECLARE = /FetchContent_Declare\s*\(\s*"?(\w+)"?([^)]*)\)/gi;

/** The project's own CMake files (relative), the root's CMakeLists.txt first. */
const cmakeFiles = (dir: string): string[] => buildFiles(dir, 'CMakeLists.txt', ['CMakeLists.txt', '*.cmake']);

const texts = (dir: string): string[] => cmakeFiles(dir).map((file) => readText(join(dir, file)) ?? '');

/** True when the project's CMake files register tests with CTest (`enable_testing()`, `add_test`, `include(CTest)`, `gtest_discover_tests`). */
export const cmakeRegistersTests = (dir: string): boolean => texts(dir).some((text) => REGISTERS_TESTS.test(text));

/** True when `ninja` is in the sandbox's PATH: CMake then generates for Ninja, else for make. */
const hasNinja = (): boolean => SANDBOX_PATH.split(':').some((folder) => existsSync(join(folder, 'ninja')));

/**
 * The `-D` settings that turn the project's tests on (docs/real-repositories.md#c-and-c): CTest's
 * `BUILD_TESTING`, each option of its own that builds its tests (`PUGIXML_BUILD_TESTS`), its
 * documentation's off, and, for a googletest it would download with FetchContent, Debian's
 * googletest sources when the machine has them.
 */
function testSettings(dir: string): string[] {
  const all = texts(dir);
  const names = [...new Set(all.flatMap((text) => [...text.matchAll(OPTION)].map((m) => m[1])))];
  const googletest = existsSync(join(GOOGLETEST_SOURCES, 'CMakeLists.txt'))
    ? all.flatMap((text) => [...text.matchAll(FETCH_DECLARE)].filter((m) => /googletest/i.test(m[0])).map((m) => m[1].toUpperCase()))
    : [];
  return [
    'BUILD_TESTING=ON',
    ...names.filter((name) => isTestOption(name) && name !== 'BUILD_TESTING').map((name) => `${name}=ON`),
    ...names.filter(isDocsOption).map((name) => `${name}=OFF`),
    ...[...new Set(googletest)].map((name) => `FETCHCONTENT_SOURCE_DIR_${name}=${GOOGLETEST_SOURCES}`),
  ].map((setting) => `-D${setting}`);
}

/** The line that configures the CMake project at `dir` in {@link CMAKE_BUILD}, its tests on. */
export const cmakeConfigure = (dir: string): string => ['cmake -S . -B', CMAKE_BUILD, ...(hasNinja() ? ['-G Ninja'] : []), ...testSettings(dir)].join(' ');

/**
 * The CMake plan of `dir` (a `CMakeLists.txt` at the root; docs/real-repositories.md#c-and-c):
 * setup configures the project in {@link CMAKE_BUILD} with the machine's compilers and libraries,
 * which downloads nothing, so it caches nothing (a missing library fails it with CMake's line that
 * names it). Verify builds there, so the agent's edits are compiled, then runs ctest.
 */
export function cmakePlan(dir: string): EcosystemPlan | undefined {
  if (!existsSync(join(dir, 'CMakeLists.txt'))) return undefined;
  return {
    ecosystem: 'cmake',
    command: cmakeConfigure(dir),
    inputs: cmakeFiles(dir),
    outputs: [],
    scratch: [CMAKE_BUILD],
    hosts: [],
    toolchain: ['cmake --version', 'cc --version', 'c++ --version'],
    setupEnv: {},
    // `cmake --build` (verify's, the agent's) on every core, whichever generator; make alone would run one job.
    commandEnv: { CMAKE_BUILD_PARALLEL_LEVEL: String(availableParallelism()) },
    binDirs: [],
    toolchainPaths: [],
  };
}
