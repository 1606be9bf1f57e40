import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadDexConfig, parseDexConfig } from '../../../client/config/config-file';
import { InvalidInput } from '../../../core/run/invalid-input';
import { DEFAULT_PHASES_BY_WEIGHT, DEFAULT_RETRY_MAP, DEFAULT_RUNAWAY } from '../../../core/task/phases';
import { DEFAULT_MODEL } from '../../../core/run/pricing';
import { DEFAULT_SANDBOX } from '../../../core/safety/sandbox-policy';

describe('parseDexConfig', () => {
  let repo: string;
  beforeEach(() => {
    repo = mkdtempSync(join(tmpdir(), 'dex-config-'));
  });
  afterEach(() => {
    rmSync(repo, { recursive: true, force: true });
  });

  /** The InvalidInput `text` is rejected with; fails the test when it is accepted or throws anything else. */
  function rejection(text: string): InvalidInput {
    try {
      parseDexConfig(text, repo);
    } catch (err) {
      expect(err).toBeInstanceOf(InvalidInput);
      return err as InvalidInput;
    }
    throw new Error(`accepted: ${text}`);
  }

  const defaults = {
    verify: [],
    detectVerify: true,
    checks: {},
    models: { default: DEFAULT_MODEL },
    maxIterations: 20,
    maxRetries: 3,
    maxTokens: 8192,
    gates: {},
    tools: { commandTimeoutMs: 120_000, outputLimitBytes: 16_384 },
    phases: DEFAULT_PHASES_BY_WEIGHT,
    retryMap: DEFAULT_RETRY_MAP,
    budgets: {},
    runaway: DEFAULT_RUNAWAY,
    maxParallel: 2,
    continueAsNewAfterTasks: 25,
    sandbox: DEFAULT_SANDBOX,
    protectedPaths: ['dex.config.yaml'],
  };

  it.each([
    ['an empty file', ''],
    ['only comments', '# nothing set yet\n'],
  ])('gives the defaults for %s', (_what, text) => {
    expect(parseDexConfig(text, repo)).toEqual(defaults);
  });

  it('reads every setting of a full config', () => {
    const text = [
      'verify: [npm run lint, npm test]',
      'models: { plan: claude-opus-4-1, large: { review: claude-opus-4-5 } }',
      'thinking: { phases: [review], budgetTokens: 2048 }',
      'verifyBaseline: false',
      'checks: { build: false }',
      'maxIterations: 5',
      'maxRetries: 2',
      'maxTokens: 4096',
      'gates:',
      '  beforePhase: true',
      '  afterVerify: { deadline: 24h, defaultAction: approve }',
      'tools: { commandTimeoutMs: 60000 }',
      'phases: { small: [implement, review] }',
      'retryMap: { review: implement }',
      'budgets: { task: { usd: 0.5 }, run: { usd: 5, tokens: 1000000 } }',
      'runaway: { sameFailure: 2 }',
      'maxParallel: 4',
      'continueAsNewAfterTasks: 10',
      'sandbox:',
      '  env: [NODE_OPTIONS]',
      '  allowHosts: [registry.npmjs.org, "*.pythonhosted.org"]',
      '  readOnlyPaths: [/opt/toolchain, ~/.nvm]',
      '  limits: { processes: 64 }',
      'protectedPaths: [".github/workflows/**"]',
    ].join('\n');
    expect(parseDexConfig(text, repo)).toEqual({
      verify: ['npm run lint', 'npm test'],
      detectVerify: false,
      checks: { build: false },
      models: { default: DEFAULT_MODEL, plan: 'claude-opus-4-1' },
      modelsByWeight: { large: { review: 'claude-opus-4-5' } },
      thinking: { phases: ['review'], budgetTokens: 2048 },
      verifyBaseline: false,
      maxIterations: 5,
      maxRetries: 2,
      maxTokens: 4096,
      gates: { beforePhase: {}, afterVerify: { deadline: '24h', defaultAction: 'approve' } },
      tools: { commandTimeoutMs: 60_000, outputLimitBytes: 16_384 },
      phases: { ...DEFAULT_PHASES_BY_WEIGHT, small: ['implement', 'review'] },
      retryMap: { review: 'implement' },
      budgets: { task: { usd: 0.5, tokens: undefined }, run: { usd: 5, tokens: 1_000_000 } },
      runaway: { ...DEFAULT_RUNAWAY, sameFailure: 2 },
      maxParallel: 4,
      continueAsNewAfterTasks: 10,
      sandbox: {
        mode: 'bwrap',
        env: ['NODE_OPTIONS'],
        allowHosts: ['registry.npmjs.org', '*.pythonhosted.org'],
        readOnlyPaths: ['/opt/toolchain', join(homedir(), '.nvm')],
        limits: { ...DEFAULT_SANDBOX.limits, processes: 64 },
      },
      protectedPaths: ['dex.config.yaml', '.github/workflows/**'],
    });
  });

  it('takes the agent for every phase, or per phase and weight, and which Claude Code settings a session reads', () => {
    expect(parseDexConfig('agent: claude-code', repo).agents).toEqual({ default: 'claude-code' });
    const mixed = parseDexConfig('agent: { implement: claude-code, large: { review: claude-code } }\nclaude: { settingSources: [project, user], mcpServers: [github] }', repo);
    expect(mixed.agents).toEqual({ implement: 'claude-code' });
    expect(mixed.agentsByWeight).toEqual({ large: { review: 'claude-code' } });
    expect(mixed.claude).toEqual({ settingSources: ['project', 'user'], mcpServers: ['github'] });
    expect(parseDexConfig('verify: []', repo).agents).toBeUndefined();
  });

  it('takes a single verify command as a list of one', () => {
    expect(parseDexConfig('verify: make check', repo).verify).toEqual(['make check']);
  });

  it.each([
    ['an unknown top-level key', 'maxIteration: 3', '"maxIteration" is not a known key'],
    ['a misspelt gate', 'gates:\n  beforePhse: true', '"gates.beforePhse" is not a known key'],
    ['an unknown gate setting', 'gates:\n  afterVerify: { timeout: 1h }', '"gates.afterVerify.timeout" is not a known key'],
    ['an unknown tool limit', 'tools: { maxOutput: 10 }', '"tools.maxOutput" is not a known key'],
    ['an unknown weight in phases', 'phases: { huge: [implement] }', '"phases.huge" is not a known key'],
    ['an unknown budget', 'budgets: { day: { usd: 1 } }', '"budgets.day" is not a known key'],
    ['an unknown sandbox setting', 'sandbox: { network: true }', '"sandbox.network" is not a known key'],
    ['an unknown sandbox limit', 'sandbox: { limits: { cpu: 1 } }', '"sandbox.limits.cpu" is not a known key'],
    ['an unknown agent', 'agent: codex', '"agent" must be one of dex, claude-code'],
    ['an unknown agent of a phase', 'agent: { review: gpt }', '"agent.review" must be one of dex, claude-code'],
    ['an unknown Claude Code setting source', 'claude: { settingSources: [everything] }', '"claude.settingSources" must be a list of project, user, local'],
    ['the model key passed into the sandbox', 'sandbox: { env: [ANTHROPIC_API_KEY] }', '"sandbox.env" may not pass ANTHROPIC_API_KEY'],
  ])('rejects %s, naming it', (_what, text, message) => {
    expect(rejection(text).message).toContain(message);
  });

  it.each([
    ['maxIterations: "ten"', 'maxIterations'],
    ['maxIterations: 0', 'maxIterations'],
    ['maxRetries: -1', 'maxRetries'],
    ['verify: 3', 'verify'],
    ['verify: [npm test, 3]', 'verify'],
    ['models: { plan: 7 }', 'models.plan'],
    ['gates:\n  afterVerify:\n    deadline: soon', 'gates.afterVerify.deadline'],
    ['gates:\n  afterVerify:\n    defaultAction: maybe', 'gates.afterVerify.defaultAction'],
    ['gates:\n  beforePhase: yes please', 'gates.beforePhase'],
    ['tools: { commandTimeoutMs: 1.5 }', 'tools.commandTimeoutMs'],
    ['sandbox: { mode: docker }', 'sandbox.mode'],
    ['sandbox: { allowHosts: ["http://x.org"] }', 'sandbox.allowHosts'],
    ['sandbox: { limits: { memoryMb: 0 } }', 'sandbox.limits.memoryMb'],
    ['protectedPaths: [/etc/passwd]', 'protectedPaths'],
    ['checks: lint', 'checks'],
    ['checks: { lint: true }', 'checks.lint'],
    ['checks: { "lint it": false }', 'checks.lint it'],
  ])('rejects the wrong type in `%s`, naming the key', (text, key) => {
    expect(rejection(text).message).toMatch(new RegExp(`^dex\\.config\\.yaml: "${key.replace(/\./g, '\\.')}" `));
  });

  it("runs the project's own checks by default; `checks:` turns them off, one or all, or gives their commands", () => {
    expect(parseDexConfig('', repo).checks).toEqual({});
    expect(parseDexConfig('checks: true', repo).checks).toEqual({});
    expect(parseDexConfig('checks: false', repo).checks).toBe(false);
    expect(parseDexConfig('checks: { lint: false, build: "npm run build:fast" }', repo).checks).toEqual({ lint: false, build: 'npm run build:fast' });
  });

  it('rejects a file that is not YAML, or not a map', () => {
    expect(rejection('verify: [npm test').message).toMatch(/not valid YAML/);
    expect(rejection('- npm test').message).toMatch(/must be a map/);
  });

  it('leaves verify to be picked from the set-up worktree when the config has no `verify:`, and only then', () => {
    writeFileSync(join(repo, 'package.json'), JSON.stringify({ scripts: { test: 'vitest run' } }));
    expect(parseDexConfig('', repo)).toMatchObject({ verify: [], detectVerify: true });
    expect(parseDexConfig('verify: [make test]', repo)).toMatchObject({ verify: ['make test'], detectVerify: false });
    expect(parseDexConfig('verify: []', repo)).toMatchObject({ verify: [], detectVerify: false });
    // With setup off nothing picks them from a worktree: they come from the checkout.
    expect(parseDexConfig('setup: false', repo)).toMatchObject({ verify: ['npm test'], detectVerify: false });
    expect(parseDexConfig('setup: false', repo).verifyNoneFound).toBeUndefined();
    // None there: the task is told, and waits at the unverified gate (docs/real-repositories.md#no-test-command-found); not when `verify: []` says so.
    writeFileSync(join(repo, 'package.json'), JSON.stringify({ scripts: { build: 'tsc' } }));
    expect(parseDexConfig('setup: false', repo)).toMatchObject({ verify: [], detectVerify: false, verifyNoneFound: true });
    expect(parseDexConfig('setup: false\nverify: []', repo).verifyNoneFound).toBeUndefined();
  });

  it('loads dex.config.yaml from the repository root, or the defaults without one', () => {
    expect(loadDexConfig(repo)).toEqual(defaults);
    writeFileSync(join(repo, 'dex.config.yaml'), 'maxIterations: 3\n');
    expect(loadDexConfig(repo).maxIterations).toBe(3);
    writeFileSync(join(repo, 'dex.config.yaml'), 'maxIterations: three\n');
    expect(() => loadDexConfig(repo)).toThrow(/"maxIterations"/);
  });
});
