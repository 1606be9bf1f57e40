/**
 * Shared set-up of the `callModel` tests: a real store on a temp file, the model activities
 * with a real Anthropic client, and a fake activity context per call.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { ApplicationFailure } from '@temporalio/common';
import type { MockActivityEnvironment } from '@temporalio/testing';
import { expect } from 'vitest';
import type { ActivityDeps } from '../../../activities/deps';
import { createModelActivities } from '../../../activities/model/call-model';
import type { DexStore } from '../../../store/dex-store';
import { openSqliteDexStore } from '../../../store/sqlite/sqlite-dex-store';
import { Store } from '../../../store/sqlite/sqlite-store';
import type { CassetteResponse } from '../../../core/parsing/cassette';
import type { ModelCallDeferred, ModelCallInput, ModelCallResult } from '../../../activities/model/call-model';
import type { LlmSpec } from '../../../core/run/run-types';
import { mockActivityEnv, runActivity } from '../env/mock-activity';

/** The workflow id the fake activity context reports. */
export const WORKFLOW_ID = 'task-repo-T1-1';

/** Not the default model: the SDK warns on every call that claude-sonnet-4-5 is deprecated. */
export const MODEL = 'claude-sonnet-4-6';

/** The model activities as the tests build them. */
export type ModelActivities = ReturnType<typeof createModelActivities>;

/** A store in a temp folder and what the tests make from it. */
export interface ModelCallFixture {
  dir: string;
  /** The store file as the tests arrange and inspect it (synchronously). */
  store: Store;
  /** The same file as the activities use it. */
  dexStore: DexStore;
  /** The activities' dependencies, with an Anthropic client for `baseURL` (the fake server when one runs). */
  deps(client?: { baseURL?: string; timeout?: number }): ActivityDeps;
  /** The model activities over `deps(client)`. */
  activities(client?: { baseURL?: string; timeout?: number }): ModelActivities;
  /** A fresh transcript whose first user message is stored, as the fetch activity leaves it. */
  newTranscript(prompt?: string): string;
  close(): Promise<void>;
}

/** Opens a fixture; close it in `afterAll`. */
export function openFixture(): ModelCallFixture {
  const dir = mkdtempSync(join(tmpdir(), 'dex-call-model-'));
  const store = Store.open(join(dir, 'dex.db'));
  const dexStore = openSqliteDexStore(join(dir, 'dex.db'));
  let transcripts = 0;
  const deps = ({ baseURL, timeout }: { baseURL?: string; timeout?: number } = {}): ActivityDeps => ({
    store: dexStore,
    dexHome: dir,
    dependencyCache: `${dir}/deps-cache`,
    anthropicClient: ({ baseUrl }) => new Anthropic({ apiKey: 'test-key', baseURL: baseUrl ?? baseURL, maxRetries: 0, logLevel: 'off', timeout }),
  });
  return {
    dir,
    store,
    dexStore,
    deps,
    activities: (client) => createModelActivities(deps(client)),
    newTranscript: (prompt = 'Add a sum function to src/math.js') => {
      const id = `${WORKFLOW_ID}/implement/${++transcripts}`;
      store.appendMessage(id, 0, 'user', prompt);
      return id;
    },
    close: async () => {
      await dexStore.close();
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fake activity context of a workflow-started activity. */
export function activityEnvironment(): MockActivityEnvironment {
  return mockActivityEnv({ workflowExecution: { workflowId: WORKFLOW_ID, runId: 'run-1' } });
}

/** A `callModel` input for the first turn of `transcriptId`, with `extra` on top. */
export function callInput(transcriptId: string, taskId: string, llm: LlmSpec, extra: Partial<ModelCallInput> = {}): ModelCallInput {
  return {
    transcriptId,
    userSeq: 0,
    taskId,
    phase: 'implement',
    model: MODEL,
    maxTokens: 4096,
    llm,
    cassetteScope: WORKFLOW_ID,
    ...extra,
  };
}

/** Runs `callModel` in a fresh fake activity context, or in `env`. */
export function runCallModel(
  acts: ModelActivities,
  input: ModelCallInput,
  env: MockActivityEnvironment = activityEnvironment(),
): Promise<ModelCallResult> {
  return runActivity(acts.callModel, [input], env) as Promise<ModelCallResult>;
}

/** Runs `callModel` with an allowance: the call made, or the worst case that did not fit. */
export function runCallModelWithin(acts: ModelActivities, input: ModelCallInput, env: MockActivityEnvironment = activityEnvironment()): Promise<ModelCallResult | ModelCallDeferred> {
  return runActivity(acts.callModel, [input], env);
}

/** The ApplicationFailure `promise` rejects with; fails the test if it resolves or rejects otherwise. */
export async function failureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApplicationFailure);
  return err as ApplicationFailure;
}

/** A one-text-block response, complete as a cassette line must be. */
export const plainReply = (text: string): CassetteResponse => ({
  type: 'message',
  role: 'assistant',
  model: MODEL,
  content: [{ type: 'text', text }],
  stop_reason: 'end_turn',
  usage: { input_tokens: 10, output_tokens: 5 },
});
