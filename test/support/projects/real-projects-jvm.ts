/**
 * Small real Maven projects for the JVM tests (docs/real-repositories.md#maven-and-gradle): JUnit 5
 * from Maven Central, plugins pinned as a project pins them, one planted one-line bug, and no
 * .gitignore (so dex alone keeps `target/` and `.dex/` out of commits). Also a Maven mirror behind
 * a CA of the test's own, as a company runs one.
 */
import { readFileSync } from 'node:fs';
import { request as httpsRequest, createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { commitProject, type RealProject } from './real-projects';
import type { TestCa } from './support-private-registry';

/** The build section every project here pins: a compiler that knows `release`, a surefire that runs JUnit 5. */
const PLUGINS =
  '  <build>\n    <plugins>\n      <plugin><artifactId>maven-compiler-plugin</artifactId><version>3.13.0</version></plugin>\n' +
  '      <plugin><artifactId>maven-surefire-plugin</artifactId><version>3.2.5</version></plugin>\n    </plugins>\n  </build>\n';
const JUNIT = '    <dependency><groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter</artifactId><version>5.10.2</version><scope>test</scope></dependency>\n';
const PROPERTIES = '  <properties>\n    <maven.compiler.release>17</maven.compiler.release>\n    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>\n  </properties>\n';

const pom = (body: string) => `<?xml version="1.0" encoding="UTF-8"?>\n<project xmlns="http://maven.apache.org/POM/4.0.0">\n  <modelVersion>4.0.0</modelVersion>\n${body}</project>\n`;

/** The one-line edit that fixes {@link mavenProject}'s planted bug. */
export const CALCULATOR_FIX = { path: 'src/main/java/demo/Calculator.java', old_string: 'a + b + 1', new_string: 'a + b' };

/** The enforcer's rule that the Maven running the build be in `range`, bound to `validate` as commons-parent binds it. */
const requireMaven = (range: string) =>
  `      <plugin><artifactId>maven-enforcer-plugin</artifactId><version>3.5.0</version><executions><execution><id>enforce-maven</id><goals><goal>enforce</goal></goals>` +
  `<configuration><rules><requireMavenVersion><version>${range}</version></requireMavenVersion></rules></configuration></execution></executions></plugin>\n`;

/**
 * A single-module project: `Calculator.add` adds one too many; its JUnit 5 test says so. With
 * `mavenRange`, its enforcer stops any Maven outside that range.
 */
export function mavenProject(opts: { mavenRange?: string } = {}): RealProject {
  const plugins = opts.mavenRange ? PLUGINS.replace('    </plugins>', `${requireMaven(opts.mavenRange)}    </plugins>`) : PLUGINS;
  const repo = commitProject('calculator', {
    'pom.xml': pom(`  <groupId>demo</groupId>\n  <artifactId>calculator</artifactId>\n  <version>1.0.0</version>\n${PROPERTIES}  <dependencies>\n${JUNIT}  </dependencies>\n${plugins}`),
    'src/main/java/demo/Calculator.java': 'package demo;\n\npublic class Calculator {\n    public static int add(int a, int b) {\n        return a + b + 1;\n    }\n}\n',
    'src/test/java/demo/CalculatorTest.java':
      'package demo;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\nimport org.junit.jupiter.api.Test;\n\nclass CalculatorTest {\n    @Test\n    void adds() {\n        assertEquals(4, Calculator.add(2, 2));\n    }\n}\n',
  });
  return { repo, fix: CALCULATOR_FIX };
}

/**
 * A reactor of two modules, `app` using `core`: each tested with JUnit 5. `app`'s tests need
 * `core`'s classes, which the reactor gives them from `core/target/classes`, never a repository.
 */
export function multiModuleMavenProject(): string {
  const module = (name: string, dependency = '') =>
    pom(`  <parent>\n    <groupId>demo</groupId>\n    <artifactId>shop</artifactId>\n    <version>1.0.0</version>\n  </parent>\n  <artifactId>${name}</artifactId>\n  <dependencies>\n${dependency}${JUNIT}  </dependencies>\n`);
  return commitProject('shop', {
    'pom.xml': pom(`  <groupId>demo</groupId>\n  <artifactId>shop</artifactId>\n  <version>1.0.0</version>\n  <packaging>pom</packaging>\n  <modules>\n    <module>core</module>\n    <module>app</module>\n  </modules>\n${PROPERTIES}${PLUGINS}`),
    'core/pom.xml': module('core'),
    'core/src/main/java/demo/core/Price.java': 'package demo.core;\n\npublic class Price {\n    public static int withTax(int cents) {\n        return cents * 120 / 100;\n    }\n}\n',
    'core/src/test/java/demo/core/PriceTest.java':
      'package demo.core;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\nimport org.junit.jupiter.api.Test;\n\nclass PriceTest {\n    @Test\n    void addsTax() {\n        assertEquals(120, Price.withTax(100));\n    }\n}\n',
    'app/pom.xml': module('app', '    <dependency><groupId>demo</groupId><artifactId>core</artifactId><version>1.0.0</version></dependency>\n'),
    'app/src/main/java/demo/app/Basket.java':
      'package demo.app;\n\nimport demo.core.Price;\n\npublic class Basket {\n    public static int total(int... cents) {\n        int sum = 0;\n        for (int c : cents) sum += Price.withTax(c);\n        return sum;\n    }\n}\n',
    'app/src/test/java/demo/app/BasketTest.java':
      'package demo.app;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\nimport org.junit.jupiter.api.Test;\n\nclass BasketTest {\n    @Test\n    void totalsWithTax() {\n        assertEquals(360, Basket.total(100, 200));\n    }\n}\n',
  });
}

/** A running HTTPS server: its port, and how many requests it served. */
export interface MavenMirror {
  port: number;
  served: () => number;
  close: () => Promise<void>;
}

/**
 * A Maven mirror on 127.0.0.1 with a certificate of `ca` (a CA no system trust store holds): it
 * serves Maven Central's files under `/maven2/`, fetched from Central by this process.
 */
export async function startMavenMirror(ca: TestCa): Promise<MavenMirror> {
  let served = 0;
  const server: Server = createServer({ key: readFileSync(ca.key), cert: readFileSync(ca.cert) }, (req, res) => {
    served++;
    const upstream = httpsRequest(`https://repo.maven.apache.org${req.url}`, { method: req.method }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, { 'content-type': answer.headers['content-type'] ?? 'application/octet-stream' });
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    upstream.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, served: () => served, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
