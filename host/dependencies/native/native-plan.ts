import type { EcosystemPlan } from '../ecosystem-plan';
import { cmakePlan } from './cmake-plan';
import { configurePlan } from './configure-plan';
import { mesonPlan } from './meson-plan';
import { builtByInstaller, otherEcosystem } from './native-files';

/**
 * The C or C++ plan of `dir` (docs/real-repositories.md#c-and-c): CMake when it has a root
 * CMakeLists.txt, else meson, else its own `configure` script (unless the project is another
 * ecosystem's); none for a plain Makefile, which has nothing to set up (verify runs its `check`
 * or `test` target), nor for a build a Python or Node installer runs.
 */
export function nativePlan(dir: string): EcosystemPlan | undefined {
  if (builtByInstaller(dir)) return undefined;
  return cmakePlan(dir) ?? mesonPlan(dir) ?? (otherEcosystem(dir) ? undefined : configurePlan(dir));
}
