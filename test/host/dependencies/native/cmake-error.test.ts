import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cmakeError } from '../../../../host/dependencies/native/cmake-error';
import { installFailed, telling } from '../../../../host/dependencies/setup-failed';
import type { EcosystemPlan } from '../../../../host/dependencies/ecosystem-plan';

/** CMake's or meson's real output configuring a project whose library is missing (test/fixtures/setup-output/). */
const output = (name: string) => readFileSync(join(__dirname, '..', '..', '..', 'fixtures', 'setup-output', name), 'utf8');

describe('the line that names a missing library when a C or C++ project is configured', () => {
  it("is CMake's first paragraph, where the project's CMakeLists.txt asked for the package", () => {
    expect(telling(output('cmake-find-package.txt'))).toBe(
      'CMakeLists.txt:3 (find_package): By not providing "FindSomethingMissing.cmake" in CMAKE_MODULE_PATH this project has asked CMake to find a package configuration file provided by "SomethingMissing", but CMake did not find one.',
    );
  });

  it("is a Find module's `Could NOT find`, said where the project called it, not inside CMake's own modules", () => {
    expect(cmakeError(output('cmake-could-not-find.txt'))).toBe('CMakeLists.txt:3 (find_package): Could NOT find ALSA (missing: ALSA_LIBRARY ALSA_INCLUDE_DIR)');
  });

  it("is pkg-config's `Package … not found`, not CMake's `A required package was not found` below it", () => {
    expect(telling(output('cmake-pkg-config.txt'))).toBe("Package 'libnotthere', required by 'virtual:world', not found");
  });

  it("is meson's ERROR line, and autoconf's `configure: error:`", () => {
    expect(telling(output('meson-dependency.txt'))).toBe('meson.build:2:0: ERROR: Dependency "libnotthere" not found, tried pkgconfig and cmake');
    expect(telling('checking for yaml_parser_initialize in -lyaml... no\nconfigure: error: libyaml is required\n')).toBe('configure: error: libyaml is required');
  });

  it('is undefined for output without a CMake error', () => {
    expect(cmakeError('-- Configuring done\n-- Generating done\n')).toBeUndefined();
  });

  it("names the configure command and the cause in setup's one line", () => {
    const plan = { ecosystem: 'cmake', command: 'cmake -S . -B .dex/cmake-build -G Ninja -DBUILD_TESTING=ON', hosts: [] as string[] } as EcosystemPlan;
    const run = { exitCode: 1, timedOut: false, output: output('cmake-could-not-find.txt'), durationMs: 900 } as Parameters<typeof installFailed>[1];
    expect(installFailed(plan, run, undefined, { mode: 'bwrap' } as Parameters<typeof installFailed>[3]).message).toBe(
      'setup failed: cmake `cmake -S . -B .dex/cmake-build -G Ninja -DBUILD_TESTING=ON` exited 1 (network only to nothing): CMakeLists.txt:3 (find_package): Could NOT find ALSA (missing: ALSA_LIBRARY ALSA_INCLUDE_DIR)',
    );
  });
});
