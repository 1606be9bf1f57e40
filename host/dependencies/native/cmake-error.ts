/** CMake's error: `CMake Error at <file>:<line> (<command>):`, then its first paragraph, indented, wrapped over lines. */
const CMAKE_ERROR = /^CMake Error at (\S+) \((\w+)\):\n((?:[ \t]+\S.*\n?)+)/m;
/** The call stack CMake prints below a module's error, most recent first: `  CMakeLists.txt:3 (find_package)`. */
const CALL_STACK = /^Call Stack \(most recent call first\):\n((?:[ \t]+\S.*\n?)+)/;

/**
 * CMake's first error as one line (docs/real-repositories.md#c-and-c): its first paragraph, said
 * where the project's own files met it: `CMakeLists.txt:3 (find_package): By not providing
 * "FindSomethingMissing.cmake" …`, or, for an error a module raised (FindALSA's `Could NOT find
 * ALSA …`), where the project called it, the innermost frame of its call stack not under an absolute path.
 */
export function cmakeError(output: string): string | undefined {
  const error = CMAKE_ERROR.exec(output);
  if (!error) return undefined;
  const [whole, file, command, paragraph] = error;
  const message = paragraph.replace(/\s+/g, ' ').trim();
  const stack = CALL_STACK.exec(output.slice(error.index + whole.length))?.[1] ?? '';
  const frames = stack.split('\n').map((line) => line.trim()).filter((line) => line && !line.startsWith('/'));
  const where = file.startsWith('/') ? frames[0] : `${file} (${command})`;
  return where ? `${where}: ${message}` : message;
}
