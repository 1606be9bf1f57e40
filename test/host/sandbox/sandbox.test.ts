import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostAllowed, isHostLocal, startEgressProxy } from '../../../host/sandbox/egress-proxy';
import { commandSetup } from '../../../host/dependencies/setup-state';
import { runAgentCommand } from '../../../host/sandbox/run-agent-command';
import { sandboxEnv } from '../../../host/sandbox/sandbox-env';
import { DEFAULT_SANDBOX, type SandboxPolicy } from '../../../core/safety/sandbox-policy';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

/** Host processes whose command line holds `marker`. */
function processesWith(marker: string): number {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').includes(marker);
      } catch {
        return false;
      }
    }).length;
}

/** A sleep length no other test run uses, to find this run's processes by. */
const uniqueSleep = (): string => `91.${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`;

let repo: string;
let worktree: string;
let outside: string;

beforeAll(() => {
  const root = mkdtempSync(join(tmpdir(), 'dex-sandbox-'));
  repo = join(root, 'repo');
  worktree = join(root, 'worktrees', 'wt');
  outside = join(root, 'outside');
  execFileSync('mkdir', ['-p', repo, outside]);
  writeFileSync(join(outside, 'secret.txt'), 'OUTSIDE-SECRET\n');
  git(root, 'init', '-q', '-b', 'main', repo);
  writeFileSync(join(repo, 'a.txt'), 'in the repo\n');
  git(repo, 'add', '-A');
  git(repo, '-c', 'user.name=t', '-c', 'user.email=t@x', 'commit', '-q', '-m', 'init');
  git(repo, 'worktree', 'add', '-q', '-b', 'task', worktree);
});

afterAll(() => rmSync(join(repo, '..'), { recursive: true, force: true }));

const run = (command: string, policy: SandboxPolicy = DEFAULT_SANDBOX, timeoutMs = 20_000) =>
  runAgentCommand(command, worktree, policy, { timeoutMs, outputLimitBytes: 64 * 1024 });

describe('runAgentCommand in bubblewrap', () => {
  it('writes the worktree, sees nothing of the host outside it, and reads git but cannot change it', async () => {
    const main = git(repo, 'rev-parse', 'main');
    const result = await run(
      `echo made > made.txt; cat ${outside}/secret.txt; ls ${repo}; git log --oneline | wc -l; git commit -q --allow-empty -m x 2>&1; git update-ref refs/heads/main HEAD^{tree} 2>&1; echo x > .git 2>&1`,
    );
    expect(readFileSync(join(worktree, 'made.txt'), 'utf8')).toBe('made\n');
    expect(result.output).not.toContain('OUTSIDE-SECRET');
    expect(result.output).not.toContain('a.txt');
    expect(result.output).toMatch(/^1$/m);
    expect(result.output).toMatch(/Read-only file system/);
    expect(readFileSync(join(worktree, '.git'), 'utf8')).toMatch(/^gitdir: /);
    expect(git(repo, 'rev-parse', 'main')).toBe(main);
  });

  it('starts with an environment from the allowlist only, and a private empty home and /tmp', async () => {
    process.env.DEX_SANDBOX_TEST_SECRET = 'ENV-SECRET';
    process.env.DEX_SANDBOX_TEST_ALLOWED = 'passed-in';
    try {
      const result = await run('env; echo "home: $(ls -A ~ | wc -l)"; echo "tmp: $(ls -A /tmp)"; cat /proc/1/environ | tr "\\0" "\\n"', {
        ...DEFAULT_SANDBOX,
        env: ['DEX_SANDBOX_TEST_ALLOWED', 'ANTHROPIC_API_KEY'],
      });
      expect(result.output).not.toContain('ENV-SECRET');
      expect(result.output).toContain('DEX_SANDBOX_TEST_ALLOWED=passed-in');
      expect(result.output).toMatch(/^HOME=\/home\/dex$/m);
      expect(result.output).toMatch(/^home: 0$/m);
      // Only the way down to this test's worktree, which lies under the host's /tmp.
      expect(result.output).toMatch(new RegExp(`^tmp: ${worktree.split('/')[2]}$`, 'm'));
    } finally {
      delete process.env.DEX_SANDBOX_TEST_SECRET;
      delete process.env.DEX_SANDBOX_TEST_ALLOWED;
    }
  });

  it('has an /etc/passwd and /etc/group of its own user only, and id, whoami, git and npm still work', async () => {
    const hostUsers = readFileSync('/etc/passwd', 'utf8').split('\n').map((line) => line.split(':')[0]).filter(Boolean);
    const result = await run(
      'cat /etc/passwd /etc/group; getent passwd | wc -l; id; whoami; echo home: ~dex; git log --oneline | wc -l; git -c user.email=t@x commit -q --allow-empty --dry-run -m x >/dev/null 2>&1; echo "git: $?"; npm --version',
    );
    const uid = process.getuid!();
    expect(result.output).toContain(`dex:x:${uid}:${process.getgid!()}:dex:/home/dex:/bin/sh\n`);
    for (const name of hostUsers) expect(result.output).not.toMatch(new RegExp(`^${name}:`, 'm'));
    expect(result.output).toMatch(/^1$/m); // getent sees one user
    expect(result.output).toContain(`uid=${uid}(dex)`);
    expect(result.output).toMatch(/^dex$/m);
    expect(result.output).toMatch(/^home: \/home\/dex$/m);
    expect(result.output).toMatch(/^\d+\.\d+\.\d+$/m); // npm runs
    expect(result.exitCode).toBe(0);
  });

  it('tells its commands nobody is at the terminal (CI=true), so a test runner that watches by default runs once', async () => {
    const result = await run('echo "CI=$CI"');
    expect(result.output).toMatch(/^CI=true$/m);
  });

  it('never passes the model key, even when the config names it', () => {
    const env = sandboxEnv(['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN'], { from: { ANTHROPIC_API_KEY: 'k', ANTHROPIC_AUTH_TOKEN: 't' } });
    expect(Object.keys(env)).not.toContain('ANTHROPIC_API_KEY');
    expect(Object.keys(env)).not.toContain('ANTHROPIC_AUTH_TOKEN');
  });

  it('a timed-out command leaves no process behind, whatever holds its pipe', async () => {
    const started = Date.now();
    const [a, b, c] = [uniqueSleep(), uniqueSleep(), uniqueSleep()];
    const result = await run(`setsid sh -c "sleep ${a}" & (nohup sleep ${b} &); sleep ${c}`, DEFAULT_SANDBOX, 1_500);
    expect(result.timedOut).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect([a, b, c].map(processesWith)).toEqual([0, 0, 0]);
  });

  it('ends background processes when the command itself ends', async () => {
    const marker = uniqueSleep();
    const result = await run(`setsid sh -c "sleep ${marker}" > /dev/null 2>&1 & echo started`);
    expect(result).toMatchObject({ exitCode: 0, timedOut: false });
    expect(processesWith(marker)).toBe(0);
  });

  it('has no network: the host loopback is out of reach', async () => {
    const server: Server = createServer((_req, res) => res.end('REACHED'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const result = await run(`node -e "require('http').get('http://127.0.0.1:${port}',r=>r.pipe(process.stdout)).on('error',e=>console.log(e.code))"`);
      expect(result.output).not.toContain('REACHED');
      expect(result.output).toContain('ECONNREFUSED');
    } finally {
      server.close();
    }
  });

  it('bounds file size, and processes where a pids cgroup can be made', async () => {
    const big = await run('head -c 3000000 /dev/zero > big.bin; ls -l big.bin', { ...DEFAULT_SANDBOX, limits: { ...DEFAULT_SANDBOX.limits, fileSizeMb: 1 } });
    expect(big.output).toMatch(/ 1048576 /);
    rmSync(join(worktree, 'big.bin'));
    const bomb = await run('for i in $(seq 1 200); do sleep 5 & done; echo spawned', { ...DEFAULT_SANDBOX, limits: { ...DEFAULT_SANDBOX.limits, processes: 20 } }, 10_000);
    if (existsSync('/sys/fs/cgroup/pids/cgroup.procs')) expect(bomb.output).toMatch(/Cannot fork|Resource temporarily unavailable/);
  });

  // Node's WebAssembly (and so its fetch) reserves about 10 GiB: under a 4 GiB limit, without the flag dex sets, both fail.
  it("runs Node's WebAssembly and fetch under a 4 GiB address-space limit", async () => {
    const tight = { ...DEFAULT_SANDBOX, limits: { ...DEFAULT_SANDBOX.limits, memoryMb: 4096 } };
    const wasm = await run(`node -e "new WebAssembly.Memory({ initial: 1 }); fetch('http://127.0.0.1:9/').catch((e) => console.log('fetch:', e.cause?.code ?? e.message)).finally(() => console.log('wasm ok', process.execArgv.join(' '), process.env.NODE_OPTIONS))"`, tight);
    expect(wasm.output, wasm.output).toMatch(/^wasm ok/m);
    expect(wasm.output).not.toMatch(/Out of memory/);
    expect(wasm.output).toMatch(/^fetch: /m);
  });
});

describe('the egress proxy', () => {
  it('names hosts exactly or by *.suffix, and counts loopback and link-local as this host', () => {
    expect(hostAllowed('registry.npmjs.org', ['registry.npmjs.org'])).toBe(true);
    expect(hostAllowed('evil.org', ['registry.npmjs.org'])).toBe(false);
    expect(hostAllowed('files.pythonhosted.org', ['*.pythonhosted.org'])).toBe(true);
    expect(hostAllowed('pythonhosted.org.evil.com', ['*.pythonhosted.org'])).toBe(false);
    expect(['127.0.0.1', '127.8.0.1', '::1', '0.0.0.0', '169.254.169.254', '::ffff:127.0.0.1'].every(isHostLocal)).toBe(true);
    expect(['10.0.0.1', '93.184.216.34', '2606:4700::1'].some(isHostLocal)).toBe(false);
  });

  it('refuses hosts not allowed, and allowed names that resolve to this host, from inside the sandbox', async () => {
    const server: Server = createServer((_req, res) => res.end('REACHED'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const policy = { ...DEFAULT_SANDBOX, allowHosts: ['localhost'] };
      const fetchVia = (url: string) =>
        `node -e "const u=new URL('${url}');require('http').get({host:'127.0.0.1',port:3128,path:u.href,headers:{host:u.host}},r=>{let b='';r.on('data',d=>b+=d).on('end',()=>console.log(r.statusCode,b))}).on('error',e=>console.log(e.code))"`;
      const result = await run(`echo "$HTTP_PROXY"; ${fetchVia(`http://localhost:${port}/`)}; ${fetchVia(`http://example.org:${port}/`)}`, policy);
      expect(result.output).toContain('http://127.0.0.1:3128');
      expect(result.output).not.toContain('REACHED');
      expect(result.output).toMatch(/403 dex sandbox: localhost resolves to (127\.0\.0\.1|::1), an address of this host/);
      expect(result.output).toMatch(/403 dex sandbox: example\.org is not in sandbox\.allowHosts/);
    } finally {
      server.close();
    }
  });

  it("leaves the command's stdout and stderr blocking once a request went through the bridge", async () => {
    // The bridge is a Node process in the background of the command; had it shared the command's
    // output, Node would have made it non-blocking for everyone once it carried a connection, and uv,
    // printing its installed packages into a full pipe, aborted on the EAGAIN (SIGABRT). O_NONBLOCK is
    // 04000 in fdinfo's flags. A server on this host stands for a registry setup may reach.
    const server: Server = createServer((_req, res) => res.end('REACHED'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const registry = `127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const blocking = 'for fd in 1 2; do f=$(awk \'/^flags/ {print $2}\' /proc/self/fdinfo/$fd); [ $(( 0$f & 04000 )) -eq 0 ] && echo "fd $fd blocking" || echo "fd $fd NON-BLOCKING"; done';
      const request = `python3 -c "import urllib.request as u; print(u.urlopen('http://${registry}/', timeout=10).read().decode())"`;
      const policy = { ...DEFAULT_SANDBOX, allowHosts: [registry] };
      const result = await runAgentCommand(`${request}; ${blocking}`, worktree, policy, { timeoutMs: 20_000, outputLimitBytes: 64 * 1024 }, { ...commandSetup(worktree), localHosts: [registry] });
      expect(result.output).toContain('REACHED');
      expect(result.output).toContain('fd 1 blocking');
      expect(result.output).toContain('fd 2 blocking');
    } finally {
      server.close();
    }
  });

  it('lets an allowed remote host through, on the address it resolved', async () => {
    const target: Server = createServer((req, res) => res.end(`REACHED ${req.url}`));
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const dir = mkdtempSync(join(tmpdir(), 'dex-proxy-test-'));
    // Loopback stands in for a remote host here only because the check is injected away.
    const proxy = await startEgressProxy(['pkg.test'], join(dir, 'p.sock'), { resolve: async () => '127.0.0.1' });
    try {
      const { request } = await import('node:http');
      const port = (target.address() as { port: number }).port;
      const body = await new Promise<string>((resolve, reject) => {
        request({ socketPath: proxy.socketPath, path: `http://pkg.test:${port}/tarball`, headers: { host: `pkg.test:${port}` } }, (res) => {
          let text = '';
          res.on('data', (d) => (text += d)).on('end', () => resolve(text));
        })
          .on('error', reject)
          .end();
      });
      expect(body).toBe('REACHED /tarball');
    } finally {
      await proxy.close();
      target.close();
    }
  });
});
