import { Context } from '@temporalio/activity';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { shellQuote } from '../../core/sheet/sheet-symbols';
import { commandEnv, progressIntervalFor, runProcess, type ShellCommandResult } from './shell-command';

/** How a person's command ran: stdout as `result.output`, and its stderr on its own. */
interface StderrApart {
  result: ShellCommandResult;
  stderr: string;
}

/**
 * Runs a command a person wrote (a sheet statement, a landCommand) with `/bin/sh` in `cwd`,
 * unconfined but without the model's credentials, heartbeating the activity while it runs.
 * stdout alone is its output: stderr goes to a file under `dir` (named by `key`) and comes back
 * apart, so a warning never ends up in a value or a recorded line.
 */
export async function runWithStderrApart(args: {
  command: string;
  cwd: string;
  dir: string;
  key: string;
  timeoutMs: number;
  outputLimitBytes: number;
  env?: Record<string, string>;
}): Promise<StderrApart> {
  const ctx = Context.current();
  mkdirSync(args.dir, { recursive: true });
  const stderrFile = join(args.dir, `${args.key.replace(/[^A-Za-z0-9._-]+/g, '_')}.stderr`);
  const result = await runProcess(
    { argv: ['/bin/sh', '-c', `{ ${args.command}\n} 2>${shellQuote(stderrFile)}`], cwd: args.cwd, env: { ...commandEnv(), ...args.env } },
    {
      timeoutMs: args.timeoutMs,
      outputLimitBytes: args.outputLimitBytes,
      signal: ctx.cancellationSignal,
      onProgress: (progress) => ctx.heartbeat(progress),
      progressIntervalMs: progressIntervalFor(ctx.info.heartbeatTimeoutMs),
    },
  );
  let stderr = '';
  try {
    stderr = readFileSync(stderrFile, 'utf8');
    rmSync(stderrFile, { force: true });
  } catch {
    // The shell could not open it: then there was nothing to read.
  }
  return { result, stderr };
}
