import type { RoadmapResult } from '../../core/types';
import { onePositional, parseCommandArgs, type Output } from '../cli-context';
import type * as DriveRun from '../drive-run';
import { readSettings } from '../settings';
import { buildRoadmapInput } from '../roadmap-request';

const USAGE = 'dex run ROADMAP.md [--repo DIR] [--llm SPEC] [--detach] [--unsafe-no-sandbox]';

/** A roadmap's result as a table: one task a line. */
export function describeRoadmap(result: RoadmapResult | undefined): string[] {
  if (!result) return [];
  return [
    ...result.tasks.map(
      (t) => `  ${t.id.padEnd(8)} ${t.state.padEnd(10)} ${t.commit ? t.commit.slice(0, 10) : ''}${t.blockedBy ? `blocked by ${t.blockedBy}` : ''}${t.error && !t.blockedBy ? ` ${t.error}` : ''}`,
    ),
    `tokens: ${result.tokens.input} input, ${result.tokens.output} output, ${result.tokens.cacheRead} cache read, ${result.tokens.cacheWrite} cache write`,
    `cost: $${result.costUsd.toFixed(4)} over ${result.runs} workflow run(s)`,
  ];
}

/** `dex run ROADMAP.md`: a whole roadmap, checked before anything starts. */
export async function runCommand(argv: string[], out: Output): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    repo: { type: 'string' },
    llm: { type: 'string' },
    detach: { type: 'boolean' },
    'unsafe-no-sandbox': { type: 'boolean' },
  });
  const roadmap = onePositional(positionals, 'a roadmap file', USAGE);
  const settings = readSettings();
  const checked = buildRoadmapInput({ roadmap, repo: values.repo, llm: values.llm, unsafeNoSandbox: values['unsafe-no-sandbox'] }, settings);
  out.info(`${checked.tasks.length} tasks in ${checked.input.roadmapFile}, landing on ${checked.input.baseBranch}`);
  // Loaded only once the input is known to be good: bad input answers without loading the SDK.
  const { driveRun, exitCodeFor } = require('../drive-run') as typeof DriveRun;
  const unsandboxed = checked.input.taskDefaults.sandbox?.mode === 'off';
  const run = await driveRun<RoadmapResult>({ workflowType: 'roadmapWorkflow', workflowId: checked.workflowId, args: [checked.input], unsandboxed }, settings, out, {
    detach: values.detach,
  });
  const head = `${run.workflowId}: ${run.end?.state ?? 'started'}${run.end?.error ? ` — ${run.end.error}` : ''}`;
  out.result([head, ...describeRoadmap(run.end?.result), ...(run.webUi ? [`Web UI: ${run.webUi}`] : [])].join('\n'), {
    workflowId: run.workflowId,
    ...run.end,
    webUi: run.webUi,
  });
  return run.end ? exitCodeFor(run.end) : 0;
}
