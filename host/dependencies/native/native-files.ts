import { join } from 'node:path';
import { gitPaths, present, readText } from '../ecosystem-plan';

/** Folders that hold other projects' code, copied in (a vendored googletest): their options and tests are not the project's. */
const VENDORED = /(^|\/)(third[_-]?party|3rdparty|externals?|extern|vendor|deps|subprojects|contrib)\//i;

/**
 * The project's own build files named `names` (`CMakeLists.txt`, `*.cmake`, `meson.build`) that git
 * tracks or would add, the root's first: never setup's build folder under `.dex/`, nor a vendored
 * project's. Outside a git repository, the root's `root` file alone.
 */
export function buildFiles(dir: string, root: string, names: string[]): string[] {
  const found = gitPaths(dir, ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', ...names.map((name) => `:(glob)**/${name}`)]) ?? [];
  const nested = found.filter((path) => path !== root && !path.startsWith('.dex/') && !VENDORED.test(path));
  return [root, ...[...new Set(nested)].sort()];
}

/** Words in an option's name that turn tests off, or turn on something besides them that needs what a machine may lack (valgrind, a sanitizer, the network). */
const NOT_JUST_TESTS = /without|disable|skip|(^|[_-])no([_-]|$)|valgrind|memcheck|coverage|sanitiz|fuzz|install|bench|werror|network|download|fetch|long|slow|extended/i;

/**
 * True when the build option `name` turns the project's own tests on: `BUILD_TESTING`,
 * `PUGIXML_BUILD_TESTS`, `GSL_TEST`, `ENABLE_CJSON_TEST`, `JSON_BuildTests`, meson's `tests`; never
 * `JANSSON_WITHOUT_TESTS`, `USE_SYSTEM_GTEST` or `TEST_WITH_VALGRIND`.
 */
export const isTestOption = (name: string): boolean => (/(^|[_-])test(s|ing)?$/i.test(name) || /[a-z]Tests?$/.test(name)) && !NOT_JUST_TESTS.test(name);

/**
 * True when the build option `name` builds documentation (`URIPARSER_BUILD_DOCS`, `JANSSON_BUILD_MAN`,
 * `ENABLE_DOXYGEN`): no test needs it, and it asks for Doxygen or Sphinx, which a machine may lack.
 */
export const isDocsOption = (name: string): boolean => /(^|[_-])(docs?|documentation|doxygen|sphinx|man|manpages?)$/i.test(name) || /[a-z](Docs?|Documentation)$/.test(name);

/** Manifests of ecosystems whose own tools build and test a project: a Makefile or `configure` beside one is theirs to run (a Go module's `make test`). */
const OTHER_MANIFESTS = ['pyproject.toml', 'setup.py', 'requirements.txt', 'go.mod', 'Cargo.toml', 'pom.xml', 'build.gradle', 'build.gradle.kts'];

/** True when the package.json of `dir` is npm's to run: it has scripts or dependencies (a clib manifest lists only its sources). */
function npmRuns(dir: string): boolean {
  const text = readText(join(dir, 'package.json'));
  if (text === undefined) return false;
  try {
    const pkg = JSON.parse(text) as Record<string, object | undefined>;
    return ['scripts', 'dependencies', 'devDependencies'].some((field) => Object.keys(pkg[field] ?? {}).length > 0);
  } catch {
    return true;
  }
}

/** True when `dir` is a project of another ecosystem (docs/real-repositories.md#c-and-c). */
export const otherEcosystem = (dir: string): boolean => present(dir, OTHER_MANIFESTS).length > 0 || npmRuns(dir);

/**
 * True when the root's CMake or meson build is another installer's to run, with what that
 * installer provides: a Python package built by scikit-build-core, meson-python or scikit-build,
 * a Node addon built by cmake-js. Configured on its own it would miss pybind11 or Node's headers.
 */
export function builtByInstaller(dir: string): boolean {
  const pyproject = readText(join(dir, 'pyproject.toml')) ?? '';
  if (/build-backend\s*=\s*["'](scikit_build_core|mesonpy|py_build_cmake)\b/.test(pyproject)) return true;
  if (/\bfrom skbuild import\b/.test(readText(join(dir, 'setup.py')) ?? '')) return true;
  return /"cmake-js"\s*:/.test(readText(join(dir, 'package.json')) ?? '');
}
