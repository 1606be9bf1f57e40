import { describe, expect, it } from 'vitest';
import { chooseMaven, compareMavenVersions, inMavenRange, parseMavenRange } from '../../../../host/dependencies/jvm/maven-version-range';

/** Part of what Maven Central's maven-metadata.xml of apache-maven lists, in its order. */
const CENTRAL = ['3.0', '3.0.5', '3.5.4', '3.6.0', '3.6.3', '3.8.1', '3.8.8', '3.9.0', '3.9.2', '3.9.11', '3.9.16', '3.10.0', '3.10.2', '4.0.0-alpha-2', '4.0.0-beta-3', '4.0.0-rc-4'];

describe("Maven's order of versions", () => {
  it.each([
    ['3.9', '3.9.0', 0],
    ['3.10.0', '3.9.16', 1],
    ['3.9.2', '3.9.11', -1],
    ['4.0.0-rc-4', '4.0.0', -1],
    ['4.0.0-alpha-2', '4.0.0-beta-3', -1],
    ['4.0.0-beta-3', '4.0.0-rc-1', -1],
    ['4.0.0-rc-4', '3.10.2', 1],
    ['3.9.0-SNAPSHOT', '3.9.0', -1],
  ])('%s against %s: %i', (a, b, sign) => {
    expect(Math.sign(compareMavenVersions(a, b))).toBe(sign);
  });
});

describe("Maven's version ranges as the enforcer's requireMavenVersion reads them", () => {
  it('reads open and closed bounds, an exact version, unions, and a bare version as "at least"', () => {
    expect(parseMavenRange('[3.9,)')).toEqual([{ lower: '3.9', lowerInclusive: true, upper: undefined, upperInclusive: false }]);
    expect(parseMavenRange('[3.6.3,4)')).toEqual([{ lower: '3.6.3', lowerInclusive: true, upper: '4', upperInclusive: false }]);
    expect(parseMavenRange('3.9.0')).toEqual([{ lower: '3.9.0', lowerInclusive: true, upperInclusive: false }]);
    expect(parseMavenRange('[3.9.6]')).toEqual([{ lower: '3.9.6', lowerInclusive: true, upper: '3.9.6', upperInclusive: true }]);
    expect(parseMavenRange('(,3.8.8],[3.9.2,)')).toHaveLength(2);
  });

  it.each(['[3.9', '3.9,4', '[3.9,)x', '(3.9)', '[1,2,3]', '[3.9,),', ''])('%j is no range', (spec) => {
    expect(parseMavenRange(spec)).toBeUndefined();
  });

  it.each([
    ['[3.9,)', '3.8.7', false],
    ['[3.9,)', '3.9.0', true],
    ['[3.9,)', '4.0.0', true],
    ['[3.6.3,4)', '3.8.7', true],
    ['[3.6.3,4)', '4.0.0', false],
    ['[3.6.3,4)', '3.6.2', false],
    ['3.9.0', '3.8.7', false],
    ['3.9.0', '3.9.11', true],
    ['(3.8.7,)', '3.8.7', false],
    ['(,3.9]', '3.9.0', true],
    ['[3.9.6]', '3.9.6', true],
    ['[3.9.6]', '3.9.7', false],
    ['(,3.8.8],[3.9.2,)', '3.9.0', false],
    ['(,3.8.8],[3.9.2,)', '3.9.11', true],
    ['not a range,', '3.9.11', false],
  ])('%s with %s: %s', (range, version, expected) => {
    expect(inMavenRange(version, range)).toBe(expected);
  });
});

describe('the Maven run in place of the machine one', () => {
  it.each([
    // The newest patch of the first release line above the machine's: 3.9, not 3.10, and never a 4.0 pre-release.
    ['[3.9,)', '3.8.7', '3.9.16'],
    ['3.9.0', '3.8.7', '3.9.16'],
    ['[3.10,)', '3.8.7', '3.10.2'],
    ['[3.6.3,4)', '3.5.0', '3.6.3'],
    // An open lower bound does not reach back to Maven 3.0: the line above the machine's.
    ['(,3.8.8],[3.9.2,)', '3.9.0', '3.9.16'],
    ['[3.9.6]', '3.8.7', undefined],
    ['[3.9.11]', '3.8.7', '3.9.11'],
    // Only older Mavens allowed: the newest of those.
    ['[3.6,3.8.2)', '3.8.7', '3.8.1'],
    ['[4,)', '3.8.7', undefined],
  ])('%s on a machine with %s: %s', (range, machine, chosen) => {
    expect(chooseMaven(CENTRAL, range, machine)).toBe(chosen);
  });
});
