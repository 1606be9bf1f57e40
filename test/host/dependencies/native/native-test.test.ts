import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { makeTestTarget } from '../../../../host/dependencies/native/configure-plan';
import { detectTestCommands } from '../../../../host/dependencies/test-command';
import { folderWith } from '../../../support/projects/real-projects';
import { CMAKE_LISTS } from '../../../support/projects/real-projects-native';

const project = (files: Record<string, string>) => folderWith(files, 'dex-native-test-');
const generator = existsSync('/usr/bin/ninja') || existsSync('/usr/local/bin/ninja') ? ' -G Ninja' : '';
const CTEST = 'cmake --build .dex/cmake-build && ctest --test-dir .dex/cmake-build --output-on-failure --no-tests=error';
/** A build folder as CMake configures it: its cache, and ctest's file at the root. */
const configured = (ctestFile: string, folder = '') => ({ '.dex/cmake-build/CMakeCache.txt': '', [`.dex/cmake-build/${folder}CTestTestfile.cmake`]: ctestFile });

describe('the test command of a C or C++ project', () => {
  it('builds and runs ctest in the build folder setup configured, where a CTestTestfile registers a test', () => {
    expect(detectTestCommands(project({ 'CMakeLists.txt': CMAKE_LISTS, ...configured('add_test([=[words_test]=] "/w/words_test")\n') }))).toEqual([CTEST]);
    // gtest_discover_tests lists its tests at build time, in a file the CTestTestfile includes.
    expect(detectTestCommands(project({ 'CMakeLists.txt': '', ...configured('include("/w/math_test[1]_include.cmake")\n') }))).toEqual([CTEST]);
  });

  it('runs ctest from the folder that enabled testing when the root did not', () => {
    const files = { 'CMakeLists.txt': '', '.dex/cmake-build/CMakeCache.txt': '', '.dex/cmake-build/tests/CTestTestfile.cmake': 'add_test(t "/w/t")\n' };
    expect(detectTestCommands(project(files))).toEqual(['cmake --build .dex/cmake-build && ctest --test-dir .dex/cmake-build/tests --output-on-failure --no-tests=error']);
  });

  it('is none when the configured build registers no test, though the CMake files mention one behind an option setup did not find', () => {
    expect(detectTestCommands(project({ 'CMakeLists.txt': CMAKE_LISTS, '.dex/cmake-build/CMakeCache.txt': '' }))).toEqual([]);
    expect(detectTestCommands(project({ 'CMakeLists.txt': '', ...configured('subdirs("src")\n') }))).toEqual([]);
  });

  it('configures first when setup did not run (`setup: false`), if the CMake files register tests, and is none when they register none', () => {
    expect(detectTestCommands(project({ 'CMakeLists.txt': CMAKE_LISTS }))).toEqual([`cmake -S . -B .dex/cmake-build${generator} -DBUILD_TESTING=ON -DWORDS_BUILD_TESTS=ON && ${CTEST}`]);
    expect(detectTestCommands(project({ 'CMakeLists.txt': 'project(p C)\n# add_test(NAME old COMMAND old)\nadd_library(p p.c)\n' }))).toEqual([]);
  });

  it('is `meson test` when the configured build lists a test, and none when it lists none', () => {
    const meson = { 'meson.build': "project('p', 'c')\ntest('t', executable('t', 't.c'))\n" };
    expect(detectTestCommands(project({ ...meson, '.dex/meson-build/meson-info/intro-tests.json': '[{"name": "t"}]' }))).toEqual(['meson test -C .dex/meson-build --print-errorlogs']);
    expect(detectTestCommands(project({ ...meson, '.dex/meson-build/meson-info/intro-tests.json': '[]' }))).toEqual([]);
    expect(detectTestCommands(project(meson))).toEqual(['meson setup .dex/meson-build && meson test -C .dex/meson-build --print-errorlogs']);
    expect(detectTestCommands(project({ 'meson.build': "project('p', 'c')\nexecutable('p', 'p.c')\n" }))).toEqual([]);
  });

  it("is the Makefile's `check` target, else its `test` target, and none without either", () => {
    expect(detectTestCommands(project({ Makefile: 'all: p\n\ntest check: all\n\t./run-tests\n' }))).toEqual(['make check']);
    expect(detectTestCommands(project({ GNUmakefile: 'test:\n\t./t\n', Makefile: 'check:\n' }))).toEqual(['make test']);
    expect(detectTestCommands(project({ Makefile: 'all:\n\tcc p.c\ntest := no\n' }))).toEqual([]);
  });

  it('is the target of the Makefile configure made, or of its template when setup did not run, after `make`', () => {
    expect(detectTestCommands(project({ configure: '', '.dex/configure-build/Makefile': 'check: check-am\n' }))).toEqual(['make -C .dex/configure-build && make -C .dex/configure-build check']);
    expect(detectTestCommands(project({ configure: '', 'Makefile.in': 'check: check-am\n' }))).toEqual(['mkdir -p .dex/configure-build && cd .dex/configure-build && ../../configure && make && make check']);
  });

  it("is the Makefile's target when the CMake build only packages the library (as parson's), whose clib package.json is no npm project", () => {
    const parson = { 'CMakeLists.txt': 'project(parson C)\nadd_library(parson parson.c)\n', Makefile: 'test: tests.c parson.c\n\t$(CC) -o $@ tests.c parson.c\n\t./$@\n', 'package.json': '{"name": "parson", "src": ["parson.c"]}' };
    expect(detectTestCommands(project({ ...parson, '.dex/cmake-build/CMakeCache.txt': '' }))).toEqual(['make test']);
    expect(detectTestCommands(project({ ...parson, 'package.json': '{"name": "p", "scripts": {"lint": "eslint ."}}' }))).toEqual([]);
  });

  it("leaves another ecosystem's Makefile to that ecosystem's own test command", () => {
    expect(detectTestCommands(project({ 'go.mod': 'module x\n', Makefile: 'test:\n\tgo test ./...\n' }))).toEqual(['go test ./...']);
    expect(detectTestCommands(project({ 'package.json': JSON.stringify({ scripts: { test: 'vitest' } }), Makefile: 'test:\n\tnpm test\n' }))).toEqual(['npm test']);
  });

  it('reads the targets of a rule, not of a variable or a pattern', () => {
    expect(makeTestTarget('check:: unit\n')).toBe('check');
    expect(makeTestTarget('test: a\n%.o: %.c\n')).toBe('test');
    expect(makeTestTarget('check := yes\ntest ?= no\n')).toBeUndefined();
  });
});
