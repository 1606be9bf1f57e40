import { describe, expect, it } from 'vitest';
import { changeSizeOf } from '../../../activities/task/change-size';

describe('changeSizeOf: the size of a change from `git diff --numstat`', () => {
  it('adds lines added and removed over every file; a binary file counts as a file with no lines', () => {
    expect(changeSizeOf('1\t1\tsrc/math.js\n60\t0\tsrc/helpers.js\n-\t-\tlogo.png\n')).toEqual({ lines: 62, files: 3 });
  });

  it('an empty diff is no change', () => {
    expect(changeSizeOf('')).toEqual({ lines: 0, files: 0 });
  });
});
