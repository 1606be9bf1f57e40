import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jvmTest } from '../../../../host/dependencies/jvm/jvm-test';
import { detectTestCommands } from '../../../../host/dependencies/test-command';
import { folderWith } from '../../../support/projects/real-projects';

describe('the test command of a Maven or Gradle project', () => {
  it('is `mvn -B -o test`, offline from what setup fetched, or the project\'s wrapper', () => {
    expect(jvmTest(folderWith({ 'pom.xml': '<project/>' }))).toBe('mvn -B -o test');
    const wrapped = folderWith({ 'pom.xml': '<project/>', mvnw: '#!/bin/sh\n', '.mvn/wrapper/maven-wrapper.properties': 'distributionUrl=x\n' });
    chmodSync(join(wrapped, 'mvnw'), 0o755);
    expect(jvmTest(wrapped)).toBe('./mvnw -B -o test');
    chmodSync(join(wrapped, 'mvnw'), 0o644);
    expect(jvmTest(wrapped)).toBe('sh mvnw -B -o test');
    // A mvnw without the properties it reads is no wrapper.
    expect(jvmTest(folderWith({ 'pom.xml': '<project/>', mvnw: '' }))).toBe('mvn -B -o test');
  });

  it('is `gradle --offline test` for a Gradle build, Maven\'s for a project with both, and none for neither', () => {
    expect(jvmTest(folderWith({ 'build.gradle.kts': '' }))).toBe('gradle --offline --no-daemon test');
    expect(jvmTest(folderWith({ 'settings.gradle': '', 'pom.xml': '<project/>' }))).toBe('mvn -B -o test');
    const neither = folderWith({ 'README.md': '' });
    expect(jvmTest(neither)).toBeUndefined();
    writeFileSync(join(neither, 'pom.xml'), '<project/>');
    expect(detectTestCommands(neither)).toEqual(['mvn -B -o test']);
  });
});
