/** The cassettes scripts/webui/webui-screenshots.ts runs its demo runs on: the model's answers, recorded by hand. */

/** One cassette line whose answer is a completion object, as test/support/model/cassette-builder.ts writes them. */
export function completionLine(completion: Record<string, string>): string {
  const text = `I need a decision before I change anything.\n\n\`\`\`json\n${JSON.stringify(completion)}\n\`\`\``;
  return JSON.stringify({
    task: '*',
    phase: '*',
    response: {
      id: 'msg_screens_01', type: 'message', role: 'assistant', model: 'claude-sonnet-4-6',
      content: [{ type: 'text', text }], stop_reason: 'end_turn', stop_sequence: null,
      usage: { input_tokens: 640, output_tokens: 72, cache_creation_input_tokens: 1536, cache_read_input_tokens: 0 },
    },
  });
}

/** The cassette of a phase worked by a Claude Code session (docs/claude-code.md): a fix with Claude Code's Bash tool, then the completion. */
export function claudeCodeLines(): string {
  const answer = (n: number, content: unknown[], stop: string) =>
    JSON.stringify({
      task: '*',
      phase: '*',
      response: {
        id: `msg_screens_cc_${n}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-6', content, stop_reason: stop, stop_sequence: null,
        usage: { input_tokens: 1480 + n, output_tokens: 60 + n, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      },
    });
  const fix = { type: 'tool_use', id: 'toolu_screens_cc_1', name: 'Bash', input: { command: "sed -i 's/return a - b;/return a + b;/' src/math.js && node --test", description: 'Fix sum and run the tests' } };
  const done = { type: 'text', text: 'sum adds now and the tests pass.\n\n```json\n{"status":"complete","summary":"sum adds its arguments"}\n```' };
  return `${answer(1, [fix], 'tool_use')}\n${answer(2, [done], 'end_turn')}\n`;
}
