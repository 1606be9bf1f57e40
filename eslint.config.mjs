// Lint rules that keep the line between where code runs sharp (docs/architecture.md): workflow code runs
// in Temporal's deterministic sandbox, and core/ is shared with it.
import { builtinModules } from 'node:module';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

/** Every Node built-in, in both the bare (`fs`) and the prefixed (`node:fs`) form. */
const nodeBuiltins = [
  ...new Set(builtinModules.flatMap((name) => (name.startsWith('node:') ? [name] : [name, `node:${name}`]))),
];

const builtinPaths = (why) => nodeBuiltins.map((name) => ({ name, allowTypeImports: true, message: why }));

const SANDBOX = 'runs in the workflow sandbox, which has no Node built-ins';

/** Modules a workflow must not load: they do I/O, or only work inside an activity, client or worker. */
const workflowForbidden = [
  ['@temporalio/activity', 'activity context exists only in activities'],
  ['@temporalio/client', 'a workflow talks to Temporal through @temporalio/workflow'],
  ['@temporalio/worker', 'the worker loads workflows, not the other way round'],
  ['@temporalio/testing', 'test code stays in test/'],
  ['@anthropic-ai/sdk', 'model calls are activities (callModel)'],
  ['simple-git', 'git is an activity'],
  ['better-sqlite3', 'the store (store/) is reached through activities'],
  ['pg', 'the store (store/) is reached through activities'],
].map(([name, why]) => ({ name, allowTypeImports: true, message: `workflow code: ${why}.` }));

export default defineConfig(
  {
    files: ['{workflows,activities,store,client,worker,core,host,tracing}/**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [...builtinPaths(`workflow code ${SANDBOX}.`), ...workflowForbidden],
          patterns: [
            {
              regex: '^(\\.\\./)+core/parsing(/.*)?$',
              message: 'core/parsing/ reads input files (YAML, JSON Schema, cassettes) for the client and activities; workflows get what it parsed as input.',
            },
            {
              regex: '^(\\.\\./)+(activities|store|client|worker)(/.*)?$',
              allowTypeImports: true,
              message: 'workflow code imports only types from activities/, store/, client/ and worker/ (call activities through proxyActivities).',
            },
          ],
        },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'a workflow never reads the environment: pass configuration in as workflow input.' },
      ],
    },
  },
  {
    files: ['core/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { paths: builtinPaths(`core/ ${SANDBOX} (workflows import it).`) }],
    },
  },
);
