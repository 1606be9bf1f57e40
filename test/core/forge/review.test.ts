import { describe, expect, it } from 'vitest';
import { clipReview, describeReview, repliesOf, type Review } from '../../../core/forge/review';

const comment = (id: number, path: string | undefined, body: string, thread = id, before: Review['comments'][number]['before'] = []) => ({ id, thread, ...(path ? { path, line: 3 } : {}), author: 'ana', body, before });
const review: Review = {
  id: 5,
  author: 'ana',
  state: 'changes_requested',
  body: 'Close.\nTwo things.',
  comments: [comment(11, 'src/a.js', 'Rename x.'), comment(12, 'src/b.js', 'Why\nthis?'), comment(13, 'src/a.js', 'Yes, that one.', 9, [{ author: 'ana', body: 'Which?' }, { author: 'dex-bot', body: 'This one?' }])],
};

describe('describeReview', () => {
  it('gives every comment with its file, line and thread, the review body quoted, and how to answer', () => {
    const text = describeReview({ pullRequest: 'PR #4', round: 1, review });
    expect(text).toContain('ana reviewed PR #4 (changes requested).');
    expect(text).toContain('> Close.\n> Two things.');
    expect(text).toContain('[c11] on src/a.js:3:\n  ana: Rename x.');
    expect(text).toContain('[c12] on src/b.js:3:\n  ana: Why\n    this?');
    expect(text).toContain('[c13] on src/a.js:3:\n  earlier, ana: Which?\n  earlier, dex-bot: This one?\n  ana: Yes, that one.');
    expect(text).toMatch(/`c<id>: <what you changed>`.*\n.*`c<id>\? <your question>`/);
  });
});

describe('repliesOf', () => {
  it("gives each thread the agent's line for its comment, a question where it asked, the rest of the summary where it said nothing", () => {
    const replies = repliesOf(review, 'Did the renames.\n- c11: renamed x to count\nc12? Which caller do you mean?');
    expect(replies).toEqual([
      { thread: 11, comment: 11, text: 'renamed x to count', question: false },
      { thread: 12, comment: 12, text: 'Which caller do you mean?', question: true },
      { thread: 9, comment: 13, text: 'Did the renames.', question: false },
    ]);
  });

  it('ignores lines for comments not in the review, and answers a review without line comments on the pull request (thread 0)', () => {
    expect(repliesOf(review, 'c99: nothing')[0]).toEqual({ thread: 11, comment: 11, text: 'c99: nothing', question: false });
    expect(repliesOf({ ...review, comments: [] }, 'Split the function.')).toEqual([{ thread: 0, comment: 5, text: 'Split the function.', question: false }]);
  });

  it('gives two comments of one thread one reply, a question when either asks', () => {
    const twice: Review = { ...review, comments: [comment(21, 'a', 'x', 20), comment(22, 'a', 'y', 20)] };
    expect(repliesOf(twice, 'c21: did x\nc22? y how?')).toEqual([{ thread: 20, comment: 21, text: 'did x\n\ny how?', question: true }]);
  });
});

describe('clipReview', () => {
  it('cuts long comments and keeps at most 50, each with its last five thread entries', () => {
    const long: Review = { ...review, body: 'b'.repeat(5000), comments: Array.from({ length: 60 }, (_, i) => comment(i + 1, 'f', 'c'.repeat(5000), i + 1, Array.from({ length: 8 }, (_, j) => ({ author: 'ana', body: `e${j}` })))) };
    const clipped = clipReview(long);
    expect(clipped.body).toHaveLength(4001);
    expect(clipped.comments).toHaveLength(50);
    expect(clipped.comments[0].body).toHaveLength(4001);
    expect(clipped.comments[0].before.map((e) => e.body)).toEqual(['e3', 'e4', 'e5', 'e6', 'e7']);
  });
});
