/**
 * The real app with the task routes, for task tests: real database (SQLite or PostgreSQL),
 * real blob store on disk, real HTTP server on port 0. Records are created through the
 * task store, as imports and live sessions create them.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ParleyApp } from '../../src/app.js';
import type { Principal } from '../../src/platform/auth/types.js';
import type { TaskModule } from '../../src/tasks/module.js';
import type { CreateTaskInput, SentenceInput, TaskRecord } from '../../src/tasks/store.js';
import { type Backend, startTestApp } from '../support/app.js';
import { parseSseBlock } from '../support/sse.js';

export interface TaskTestApp {
  app: ParleyApp;
  url: string;
  dataDir: string;
  backend: Backend;
  /** PostgreSQL schema of the app's data (postgres backend). */
  pgSchema?: string;
  mod: TaskModule;
  /** Real API keys of two accounts (created through the keys service). */
  keyA: string;
  keyB: string;
  principalA: Principal;
  principalB: Principal;
  close(): Promise<void>;
}

export async function startTaskApp(backend: Backend): Promise<TaskTestApp> {
  const t = await startTestApp({ backend });
  const app = t.app;
  const mod = app.deps.tasks;
  const a = await app.deps.keys.createKey({ name: 'A' });
  const b = await app.deps.keys.createKey({ name: 'B' });
  return {
    app,
    url: t.url,
    dataDir: t.dataDir,
    backend,
    pgSchema: t.pgSchema,
    mod,
    keyA: a.api_key,
    keyB: b.api_key,
    principalA: { accountId: a.account_id, keyId: a.key_id },
    principalB: { accountId: b.account_id, keyId: b.key_id },
    close: () => t.close(),
  };
}

let audioCache: Buffer | null = null;

/** A real 3-second M4A (AAC), made once by ffmpeg. */
export function sampleM4a(): Buffer {
  if (audioCache) return audioCache;
  const dir = mkdtempSync(join(tmpdir(), 'parley-m4a-'));
  const out = join(dir, 'a.m4a');
  execFileSync('ffmpeg', [
    '-hide_banner',
    '-loglevel',
    'error',
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=440:duration=3',
    '-c:a',
    'aac',
    '-b:a',
    '64k',
    out,
  ]);
  audioCache = readFileSync(out);
  rmSync(dir, { recursive: true, force: true });
  return audioCache;
}

export interface SeedOptions extends Partial<CreateTaskInput> {
  status?: TaskRecord['processingStatus'];
  sentences?: SentenceInput[];
  audio?: boolean;
  source?: boolean;
}

/** Creates a task as a writer would: create, fill, move through the states to `status`. */
export async function seedTask(t: TaskTestApp, options: SeedOptions = {}): Promise<TaskRecord> {
  const { store } = t.mod;
  const status = options.status ?? 'completed';
  const initial = status === 'recording' || status === 'importing' || status === 'uploading' ? status : 'processing';
  const task = await store.createTask({
    accountId: t.principalA.accountId,
    keyId: t.principalA.keyId,
    title: 'Meeting',
    type: 'transcribe',
    typeSource: 'realtime',
    recognitionMode: 'single',
    transcriptionLanguages: ['en-US'],
    translationLanguages: null,
    durationMs: 3000,
    ...options,
    processingStatus: initial,
  });
  if (options.sentences) await store.appendSentences(task.taskId, options.sentences);
  if (options.audio) {
    const key = `tasks/${task.taskId}/audio.m4a`;
    await t.app.deps.blobs.put(key, sampleM4a());
    await store.setAudio(task.taskId, key);
  }
  if (options.source) {
    const key = `imports/${task.taskId}/source.m4a`;
    await t.app.deps.blobs.put(key, sampleM4a());
    await store.setSource(task.taskId, key);
  }
  if (status === 'completed' || status === 'failed') await store.setStatus(task.taskId, status);
  return (await store.getTask(task.taskId)) as TaskRecord;
}

/** Reads a whole SSE response into its events. */
export async function readSse(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  const text = await res.text();
  const events: { event: string; data: unknown }[] = [];
  for (const block of text.split('\n\n')) {
    const e = parseSseBlock(block);
    if (e) events.push(e);
  }
  return { status: res.status, headers: res.headers, events, text };
}

/** A real import record, still pending, for `taskId` (the task is busy while its import processes). */
export async function pendingImport(t: TaskTestApp, importId: string, taskId: string): Promise<void> {
  const p = t.principalA;
  await t.app.deps.imports.store.insert({
    importId,
    accountId: p.accountId,
    keyId: p.keyId,
    taskId,
    originalFilename: 'a.wav',
    fileSizeBytes: 1,
    format: 'wav',
    durationMs: 1000,
    sourceKey: `tasks/${taskId}/source.wav`,
    options: { transcriptionLanguages: ['en-US'], translationLanguages: [], recognitionMode: 'single', summary: null, glossary: null },
    callbackUrl: null,
  });
}
