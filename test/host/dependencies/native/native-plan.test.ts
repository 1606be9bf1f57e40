import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { detectEcosystems } from '../../../../host/dependencies/ecosystems';
import { isDocsOption, isTestOption } from '../../../../host/dependencies/native/native-files';
import { nativePlan } from '../../../../host/dependencies/native/native-plan';
import { commitProject, folderWith } from '../../../support/projects/real-projects';
import { CMAKE_LISTS } from '../../../support/projects/real-projects-native';

const project = (files: Record<string, string>) => folderWith(files, 'dex-native-plan-');
/** What `-G` CMake is given here: Ninja where the sandbox's PATH has it. */
const generator = existsSync('/usr/bin/ninja') || existsSync('/usr/local/bin/ninja') ? ' -G Ninja' : '';

describe('the C and C++ plans', () => {
  it('configures a CMake project in .dex/cmake-build with its own test option on, and caches nothing', () => {
    const plan = nativePlan(project({ 'CMakeLists.txt': CMAKE_LISTS }))!;
    expect(plan).toMatchObject({ ecosystem: 'cmake', outputs: [], scratch: ['.dex/cmake-build'], hosts: [], inputs: ['CMakeLists.txt'] });
    expect(plan.command).toBe(`cmake -S . -B .dex/cmake-build${generator} -DBUILD_TESTING=ON -DWORDS_BUILD_TESTS=ON`);
    expect(plan.toolchain).toEqual(['cmake --version', 'cc --version', 'c++ --version']);
    expect(Number(plan.commandEnv.CMAKE_BUILD_PARALLEL_LEVEL)).toBeGreaterThan(0);
  });

  it("reads the options of the project's own CMake files, never a vendored project's: tests on, but none that turns them off, and documentation off", () => {
    const repo = commitProject('opts', {
      'CMakeLists.txt': 'project(p CXX)\noption(P_BUILD_TESTS "tests" OFF)\noption(P_WITHOUT_TESTS "no tests" OFF)\noption(P_TEST_WITH_VALGRIND "valgrind" OFF)\noption(P_BUILD_DOCS "needs Doxygen" ON)\nadd_subdirectory(lib)\n',
      'lib/CMakeLists.txt': 'cmake_dependent_option(LIB_ENABLE_TESTING "lib tests" ON "P_BUILD_TESTS" OFF)\n',
      'cmake/options.cmake': '# option(P_COMMENTED_TEST "a comment")\n',
      'third_party/googletest/CMakeLists.txt': 'option(gtest_build_tests "gtest\'s own tests" OFF)\n',
    });
    const plan = nativePlan(repo)!;
    expect(plan.command).toMatch(/ -DBUILD_TESTING=ON -DP_BUILD_TESTS=ON -DLIB_ENABLE_TESTING=ON -DP_BUILD_DOCS=OFF$/);
    expect(plan.inputs).toEqual(['CMakeLists.txt', 'cmake/options.cmake', 'lib/CMakeLists.txt']);
  });

  it("builds a googletest the project downloads with FetchContent from Debian's sources, when the machine has them", () => {
    const plan = nativePlan(project({ 'CMakeLists.txt': 'include(FetchContent)\nFetchContent_Declare(\n  googletest\n  URL https://github.com/google/googletest/archive/v1.14.0.zip\n)\nFetchContent_Declare(fmt GIT_REPOSITORY https://github.com/fmtlib/fmt)\n' }))!;
    const sources = existsSync('/usr/src/googletest/CMakeLists.txt');
    expect(plan.command.includes('-DFETCHCONTENT_SOURCE_DIR_GOOGLETEST=/usr/src/googletest')).toBe(sources);
    expect(plan.command).not.toContain('FMT');
  });

  it('tells the test and documentation options from the others by their names', () => {
    expect(['BUILD_TESTING', 'PUGIXML_BUILD_TESTS', 'GSL_TEST', 'ENABLE_CJSON_TEST', 'JSON_BuildTests', 'tests', 'build-tests'].filter(isTestOption)).toHaveLength(7);
    expect(['JANSSON_WITHOUT_TESTS', 'USE_SYSTEM_GTEST', 'JANSSON_TEST_WITH_VALGRIND', 'ENABLE_VALGRIND', 'FOO_INSTALL_TESTS', 'NO_TESTS', 'LATEST', 'FUZZ_TESTS'].filter(isTestOption)).toEqual([]);
    expect(['URIPARSER_BUILD_DOCS', 'JANSSON_BUILD_MAN', 'ENABLE_DOXYGEN', 'BUILD_DOCUMENTATION', 'docs', 'FOO_BuildDocs', 'HUMAN', 'DOCS_DIR', 'P_BUILD_TESTS'].filter(isDocsOption)).toEqual([
      'URIPARSER_BUILD_DOCS', 'JANSSON_BUILD_MAN', 'ENABLE_DOXYGEN', 'BUILD_DOCUMENTATION', 'docs', 'FOO_BuildDocs',
    ]);
  });

  it("configures a meson project in .dex/meson-build with its boolean test option on and its documentation off; a feature option stays as the owner set it", () => {
    const plan = nativePlan(
      project({
        'meson.build': "project('p', 'c')\n",
        'meson_options.txt': "option('tests', type : 'boolean', value : false)\noption('docs', type : 'boolean', value : false)\noption('benchmarks_tests', type : 'feature')\n",
      }),
    )!;
    expect(plan).toMatchObject({ ecosystem: 'meson', command: 'meson setup .dex/meson-build -Dtests=true -Ddocs=false', outputs: [], scratch: ['.dex/meson-build'], inputs: ['meson.build', 'meson_options.txt'] });
  });

  it('prefers CMake to meson, and meson to a configure script', () => {
    expect(nativePlan(project({ 'CMakeLists.txt': '', 'meson.build': '', configure: '' }))?.ecosystem).toBe('cmake');
    expect(nativePlan(project({ 'meson.build': '', configure: '' }))?.ecosystem).toBe('meson');
  });

  it('runs a configure script in .dex/configure-build; a plain Makefile has nothing to set up', () => {
    expect(nativePlan(project({ configure: '#!/bin/sh\n', 'Makefile.in': 'check:\n' }))).toMatchObject({
      ecosystem: 'configure',
      command: 'mkdir -p .dex/configure-build && cd .dex/configure-build && ../../configure',
      inputs: ['configure', 'Makefile.in'],
      scratch: ['.dex/configure-build'],
    });
    expect(nativePlan(project({ Makefile: 'check:\n\ttrue\n' }))).toBeUndefined();
    // autoreconf is the owner's to run.
    expect(nativePlan(project({ 'configure.ac': 'AC_INIT([p], [1])\n' }))).toBeUndefined();
  });

  it("leaves a build to the installer that runs it, and another ecosystem's configure script to that ecosystem", () => {
    expect(nativePlan(project({ 'CMakeLists.txt': '', 'pyproject.toml': '[build-system]\nbuild-backend = "scikit_build_core.build"\n' }))).toBeUndefined();
    expect(nativePlan(project({ 'meson.build': '', 'pyproject.toml': "[build-system]\nbuild-backend = 'mesonpy'\n" }))).toBeUndefined();
    expect(nativePlan(project({ 'CMakeLists.txt': '', 'package.json': '{"devDependencies": {"cmake-js": "^7"}}' }))).toBeUndefined();
    expect(nativePlan(project({ configure: '', 'go.mod': 'module x\n' }))).toBeUndefined();
    // A C++ project with tooling from npm is still a CMake project.
    expect(nativePlan(project({ 'CMakeLists.txt': '', 'package.json': '{"devDependencies": {"prettier": "3"}}' }))?.ecosystem).toBe('cmake');
  });

  it('is one of the ecosystems detection finds', () => {
    expect(detectEcosystems(project({ 'CMakeLists.txt': '', 'go.mod': 'module x\n' })).map((plan) => plan.ecosystem)).toEqual(['go', 'cmake']);
  });
});
