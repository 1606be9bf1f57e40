/**
 * Small real C projects for the C and C++ tests (docs/real-repositories.md#c-and-c): one library,
 * `count_words`, built the four ways owners build C (CMake with ctest, meson, a Makefile with a
 * `check` target, a `configure` script), each with its test behind the switch its owner would
 * give it and one planted one-line bug (it counts one word too many). Built with the machine's
 * compiler; nothing is downloaded.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { commitProject, type RealProject } from './real-projects';

/** The one-line edit that fixes the planted bug. */
const FIX = { path: 'src/words.c', old_string: 'return words + 1;', new_string: 'return words;' };

/** The library and its test: no build files. */
const WORDS = {
  'include/words.h': '#ifndef WORDS_H\n#define WORDS_H\n\n/* How many words (runs of characters other than spaces) `text` holds. */\nint count_words(const char *text);\n\n#endif\n',
  'src/words.c':
    '#include <ctype.h>\n#include "words.h"\n\nint count_words(const char *text) {\n  int words = 0, inside = 0;\n  for (; *text; text++) {\n    if (isspace((unsigned char)*text)) {\n      inside = 0;\n    } else if (!inside) {\n      inside = 1;\n      words++;\n    }\n  }\n  return words + 1;\n}\n',
  'tests/words_test.c':
    '#include <stdio.h>\n#include "words.h"\n\nstatic int failures = 0;\n#define CHECK(expr) do { if (!(expr)) { fprintf(stderr, "%s:%d: check failed: %s\\n", __FILE__, __LINE__, #expr); failures++; } } while (0)\n\nint main(void) {\n  CHECK(count_words("") == 0);\n  CHECK(count_words("one two  three") == 3);\n  CHECK(count_words("  padded  ") == 1);\n  return failures ? 1 : 0;\n}\n',
};

/** A CMake library whose test is built only with its own option on (`WORDS_BUILD_TESTS`, off by default), and registered with ctest. */
export const CMAKE_LISTS = `cmake_minimum_required(VERSION 3.16)
project(words C)
option(WORDS_BUILD_TESTS "Build the words tests" OFF)

add_library(words src/words.c)
target_include_directories(words PUBLIC include)

if(WORDS_BUILD_TESTS)
  enable_testing()
  add_executable(words_test tests/words_test.c)
  target_link_libraries(words_test PRIVATE words)
  add_test(NAME words_test COMMAND words_test)
endif()
`;

/** The library built with CMake, tested with ctest; no .gitignore, so nothing keeps a build folder out of a commit but dex. */
export function cmakeProject(): RealProject {
  return { repo: commitProject('words', { ...WORDS, 'CMakeLists.txt': CMAKE_LISTS }), fix: FIX };
}

/** The library built with meson, its test behind the boolean option `tests` (off by default). */
export function mesonProject(): RealProject {
  const repo = commitProject('words-meson', {
    ...WORDS,
    'meson.build':
      "project('words', 'c')\n\nwords = static_library('words', 'src/words.c', include_directories: 'include')\n\nif get_option('tests')\n  test('words_test', executable('words_test', 'tests/words_test.c', link_with: words, include_directories: 'include'))\nendif\n",
    'meson_options.txt': "option('tests', type : 'boolean', value : false, description : 'build the test suite')\n",
  });
  return { repo, fix: FIX };
}

/** The library with a plain Makefile whose `check` target builds and runs the test in the source tree (its binary ignored by git). */
export function makeCheckProject(): RealProject {
  const repo = commitProject('words-make', {
    ...WORDS,
    '.gitignore': 'words_test\n',
    Makefile:
      'CFLAGS ?= -O0 -g -Wall\n\nwords_test: tests/words_test.c src/words.c include/words.h\n\t$(CC) $(CFLAGS) -Iinclude -o $@ tests/words_test.c src/words.c\n\ncheck: words_test\n\t./words_test\n\n.PHONY: check\n',
  });
  return { repo, fix: FIX };
}

/** What the `configure` script writes where it runs: a Makefile whose `check` target builds from the source folder. */
const CONFIGURE_SCRIPT = `#!/bin/sh
# Writes a Makefile in the folder it runs in, building from the folder it lives in, as autoconf's do.
srcdir=$(cd "$(dirname "$0")" && pwd)
cc=\${CC:-cc}
command -v "$cc" >/dev/null 2>&1 || { echo "configure: error: no C compiler found ($cc)" >&2; exit 1; }
printf 'SRC = %s\\n\\nwords_test: $(SRC)/tests/words_test.c $(SRC)/src/words.c\\n\\t%s -I$(SRC)/include -o $@ $(SRC)/tests/words_test.c $(SRC)/src/words.c\\n\\ncheck: words_test\\n\\t./words_test\\n' "$srcdir" "$cc" > Makefile
echo "configure: wrote Makefile for $srcdir"
`;

/** The library with its own `configure` script (no Makefile in the tree until it runs). */
export function configureProject(): RealProject {
  const repo = commitProject('words-configure', WORDS, (dir) => {
    writeFileSync(join(dir, 'configure'), CONFIGURE_SCRIPT);
    chmodSync(join(dir, 'configure'), 0o755);
  });
  return { repo, fix: FIX };
}

/** A CMake project that needs a library no machine has: `find_package(SomethingMissing REQUIRED)`. */
export const missingLibraryProject = (): string =>
  commitProject('needs-missing', { ...WORDS, 'CMakeLists.txt': 'cmake_minimum_required(VERSION 3.16)\nproject(needs C)\nfind_package(SomethingMissing REQUIRED)\nadd_library(words src/words.c)\n' });
