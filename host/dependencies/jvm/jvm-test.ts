import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { present } from '../ecosystem-plan';
import { mavenCommand } from './maven-plan';

/**
 * The test command of a Maven or Gradle project (docs/real-repositories.md#verify-without-configuration):
 * `mvn -B -o test` (`./mvnw -B -o test` with the project's wrapper), or `gradle --offline test`
 * (the Gradle setup put on PATH), each offline from what setup fetched; a project with a pom.xml is Maven's.
 */
export function jvmTest(dir: string): string | undefined {
  if (existsSync(join(dir, 'pom.xml'))) return `${mavenCommand(dir)} -B -o test`;
  if (present(dir, ['build.gradle', 'build.gradle.kts', 'settings.gradle', 'settings.gradle.kts']).length) return 'gradle --offline --no-daemon test';
  return undefined;
}
