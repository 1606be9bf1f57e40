import { readdirSync, readFileSync } from 'node:fs';

/** Median and 95th percentile of a sample, in the sample's unit. */
export interface Summary {
  median: number;
  p95: number;
  runs: number;
}

/** The value at quantile `q` (nearest rank) of `values`. */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** Median and p95 of `values`, rounded to 3 decimals. */
export function summarize(values: number[]): Summary {
  return { median: round(quantile(values, 0.5)), p95: round(quantile(values, 0.95)), runs: values.length };
}

/** `x` rounded to `digits` decimals. */
export function round(x: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** Milliseconds since an arbitrary origin, with sub-millisecond resolution. */
export function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** How long `fn` takes, in milliseconds. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = nowMs();
  const value = await fn();
  return { ms: nowMs() - start, value };
}

/** Samples this process's RSS every `everyMs` until stopped; returns the peak in MiB. */
export function rssSampler(everyMs = 50): { stop(): number } {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      return mib(Math.max(peak, process.memoryUsage().rss));
    },
  };
}

/** Polls `check` every `everyMs` until it holds. */
export async function until(check: () => Promise<boolean> | boolean, everyMs = 10): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, everyMs));
}

/** Bytes as MiB, one decimal. */
export function mib(bytes: number): number {
  return round(bytes / 1024 / 1024, 1);
}

/** CPU seconds (user + system) a process has used so far, from `/proc/<pid>/stat`. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may contain spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return (utime + stime) / 100;
}

/**
 * Waits until process `pid` is quiet (under 5 % of a core over half a second), at most `maxMs`;
 * resolves with how long it waited. A section that follows a burst (B2's 256 runs) would otherwise
 * measure the server still digesting it: B3's first crash resumed 0.8 s later right after B2
 * than on a fresh or settled server (5.6 s against 4.8 s).
 */
export async function settled(pid: number, maxMs = 30_000): Promise<number> {
  const t0 = Date.now();
  for (;;) {
    const before = cpuSeconds(pid);
    await new Promise((resolve) => setTimeout(resolve, 500));
    if (cpuSeconds(pid) - before < 0.025 || Date.now() - t0 > maxMs) return Date.now() - t0;
  }
}


/**
 * CPU seconds (user + system) of process `pid` and every process under it, and of the children it
 * has reaped: PostgreSQL's postmaster and its backends, for instance.
 */
export function treeCpuSeconds(pid: number): number {
  const stats = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => {
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return [{ pid: Number(name), ppid: Number(fields[1]), own: (Number(fields[11]) + Number(fields[12])) / 100, reaped: (Number(fields[13]) + Number(fields[14])) / 100 }];
      } catch {
        return []; // ended while read
      }
    });
  const under = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const s of stats) if (!under.has(s.pid) && under.has(s.ppid)) grew = under.add(s.pid) !== undefined;
  }
  const root = stats.find((s) => s.pid === pid);
  return stats.filter((s) => under.has(s.pid)).reduce((sum, s) => sum + s.own, 0) + (root?.reaped ?? 0);
}
