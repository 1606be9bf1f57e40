import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { readText } from '../ecosystem-plan';
import { CMAKE_BUILD, cmakeConfigure, cmakeRegistersTests } from './cmake-plan';
import { CONFIGURE, CONFIGURE_BUILD, makeTestTarget, makefileText } from './configure-plan';
import { MESON_BUILD, mesonRegistersTests, mesonSetup } from './meson-plan';
import { builtByInstaller, otherEcosystem } from './native-files';

/** How deep below the build folder ctest's files are looked for. */
const CTEST_DEPTH = 4;
/** What a CTestTestfile.cmake holds for a registered test: `add_test(…)`, or gtest_discover_tests' `include(…)` of the tests it lists at build time. */
const CTEST_REGISTERED = /^\s*(add_test|include)\s*\(/m;

/**
 * The folder of the configured build at `build` whose ctest runs the project's tests: the
 * shallowest holding a CTestTestfile.cmake (the build's root, or `tests/` when only that folder
 * calls enable_testing()), provided one of them registers a test; undefined when none does.
 */
function ctestFolder(build: string): string | undefined {
  let level = [build];
  let shallowest: string | undefined;
  for (let depth = 0; depth <= CTEST_DEPTH && level.length; depth++) {
    const next: string[] = [];
    for (const folder of level) {
      const text = readText(join(folder, 'CTestTestfile.cmake'));
      if (text !== undefined) shallowest ??= folder;
      if (text !== undefined && CTEST_REGISTERED.test(text)) return shallowest;
      const entries = readdirSync(folder, { withFileTypes: true });
      // CMake's own files, FetchContent's dependencies and ctest's logs register none of the project's tests.
      next.push(...entries.filter((e) => e.isDirectory() && !['CMakeFiles', '_deps', 'Testing'].includes(e.name) && !e.name.startsWith('.')).map((e) => join(folder, e.name)));
    }
    level = next;
  }
  return undefined;
}

const ctest = (folder: string) => `cmake --build ${CMAKE_BUILD} && ctest --test-dir ${folder} --output-on-failure --no-tests=error`;

/**
 * Build, then ctest (docs/real-repositories.md#c-and-c): in the build folder setup configured when
 * it registers a test, else, when setup did not run, after configuring it, if the CMake files
 * register any. `--no-tests=error`: a build that ends up with no test fails instead of passing.
 */
function cmakeTest(dir: string): string | undefined {
  if (existsSync(join(dir, CMAKE_BUILD, 'CMakeCache.txt'))) {
    const folder = ctestFolder(join(dir, CMAKE_BUILD));
    return folder === undefined ? undefined : ctest(relative(dir, folder));
  }
  return cmakeRegistersTests(dir) ? `${cmakeConfigure(dir)} && ${ctest(CMAKE_BUILD)}` : undefined;
}

const mesonTest = `meson test -C ${MESON_BUILD} --print-errorlogs`;

/** `meson test` (which builds first) when the configured build lists a test, or when setup did not run and a meson.build registers one. */
function mesonTestOf(dir: string): string | undefined {
  const listed = readText(join(dir, MESON_BUILD, 'meson-info', 'intro-tests.json'));
  if (listed !== undefined) return listed.trim().startsWith('[]') ? undefined : mesonTest;
  return mesonRegistersTests(dir) ? `${mesonSetup(dir)} && ${mesonTest}` : undefined;
}

/** `make check` or `make test` of the project's own makefile, whichever target it has. */
function plainMakeTest(dir: string): string | undefined {
  const target = makeTestTarget(makefileText(dir) ?? '');
  return target && `make ${target}`;
}

/**
 * `make check` or `make test`, whichever target the project's makefile has: the one its
 * `configure` made in the build folder, or, when setup did not run, the template (`Makefile.in`)
 * or the makefile itself after configuring; after `make`, as owners of a configure script run it
 * (GNU's `./configure && make && make check`; tcc's `make test` does not build the compiler first).
 * For a project without `configure`, its own makefile's target alone.
 */
function makeTest(dir: string): string | undefined {
  if (!existsSync(join(dir, 'configure'))) return plainMakeTest(dir);
  const configured = makefileText(join(dir, CONFIGURE_BUILD));
  if (configured !== undefined) {
    const target = makeTestTarget(configured);
    return target && `make -C ${CONFIGURE_BUILD} && make -C ${CONFIGURE_BUILD} ${target}`;
  }
  const target = makeTestTarget(readText(join(dir, 'Makefile.in')) ?? makefileText(dir) ?? '');
  return target && `${CONFIGURE} && make && make ${target}`;
}

/**
 * The C or C++ project's test command (docs/real-repositories.md#c-and-c), by the build its plan
 * set up: CMake's ctest, else `meson test`, else (or when those register no test) make's `check`
 * or `test` target. None in another ecosystem's project, whose own test command is found, and
 * none when the project registers no test: the task then waits at the `unverified` gate.
 */
export function nativeTest(dir: string): string | undefined {
  if (builtByInstaller(dir)) return undefined;
  const generator = existsSync(join(dir, 'CMakeLists.txt')) ? cmakeTest : existsSync(join(dir, 'meson.build')) ? mesonTestOf : undefined;
  const generated = generator?.(dir);
  if (generated || otherEcosystem(dir)) return generated;
  // A CMake or meson build that only packages the library (parson's) leaves its tests to the Makefile.
  if (generator) return existsSync(join(dir, 'configure')) ? undefined : plainMakeTest(dir);
  return makeTest(dir);
}
