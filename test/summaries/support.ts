/**
 * Summary SSE tests: the real app (real database, HTTP on port 0) with real engines (the
 * built-in extractive summarizer and Apertium; optionally the LLM summarizer over the local
 * OpenAI-compatible test server), funded keys, tasks seeded through the task store, and an
 * SSE client over fetch that reads events as they arrive.
 */
import { loadConfig } from '../../src/config.js';
import { apertiumFactory } from '../../src/engines/builtin/apertium.js';
import { extractiveSummarizerFactory } from '../../src/engines/builtin/extractive-summarizer.js';
import { EngineRegistry } from '../../src/engines/registry.js';
import { createOpenAiChat } from '../../src/engines/remote/openai-chat.js';
import { createLlmSummarizer } from '../../src/engines/summary/llm-summarizer.js';
import type { AnyEngine } from '../../src/engines/types.js';
import type { Principal } from '../../src/platform/auth/types.js';
import { createLogger } from '../../src/platform/logging.js';
import type { CreateTaskInput, SentenceInput, TaskRecord } from '../../src/tasks/store.js';
import { type Backend, startTestApp, type TestApp, type TestAppOptions } from '../support/app.js';
import type { OpenAiServer } from '../support/openai-server.js';
import { parseSseBlock } from '../support/sse.js';

export interface LlmOptions {
  server: OpenAiServer;
  maxTokens?: number;
  timeLimitMs?: number;
  /** Timeout of one chat request (llm_timeout). */
  timeoutMs?: number;
}

/** Built-in engines a fresh machine has (extractive summarizer, Apertium), plus the LLM summarizer first when given. */
export async function summaryEngines(llm?: LlmOptions): Promise<EngineRegistry> {
  const ctx = { config: loadConfig({}), modelsDir: '/nowhere', logger: createLogger('silent') };
  const out: AnyEngine[] = [];
  if (llm) {
    const chat = createOpenAiChat({ baseUrl: llm.server.url, model: 'm', timeoutMs: llm.timeoutMs ?? 5000, retries: 0 });
    out.push(createLlmSummarizer(chat, { maxTokens: llm.maxTokens ?? 500, timeLimitMs: llm.timeLimitMs ?? 10_000 }));
  }
  for (const f of [extractiveSummarizerFactory, apertiumFactory]) {
    const e = await f.create(ctx as never);
    if ('unavailable' in e) throw new Error(`${f.id} unavailable: ${e.unavailable}`);
    out.push(...((Array.isArray(e) ? e : [e]) as AnyEngine[]));
  }
  return EngineRegistry.fromEngines(out);
}

/** Plans for the plan-bound tests: one without summaries, one with them. */
export const PLANS = JSON.stringify({
  nosummary: { features: { transcribe: true }, oneoff_features: { import: true } },
  withsummary: { features: { transcribe: true }, oneoff_features: { summary: true } },
});

export async function startSummaryApp(backend: Backend, llm?: LlmOptions, options: TestAppOptions = {}): Promise<TestApp> {
  return startTestApp({ backend, engines: await summaryEngines(llm), ...options, env: { PARLEY_PLANS: PLANS, ...(options.env ?? {}) } });
}

export interface Funded {
  key: string;
  principal: Principal;
}

/** A new account with a key and `points` of account credit. */
export async function funded(t: TestApp, points: number): Promise<Funded> {
  const k = await t.app.deps.keys.createKey({ name: 'summaries' });
  if (points > 0) await t.app.deps.billing.grantCredit({ accountId: k.account_id, points, pool: 'account' });
  return { key: k.api_key, principal: { accountId: k.account_id, keyId: k.key_id } };
}

export { MEETING } from '../support/meetings.js';

/** The 11-second JFK import as the built-in recognizer hears it: too short to summarize. */
export const JFK = ['and so my fellow americans ask not what your country can do for you ask what you can do for your country'];

export async function seed(
  t: TestApp,
  owner: Principal,
  sentences: readonly string[],
  options: Partial<CreateTaskInput> & { status?: TaskRecord['processingStatus'] } = {},
): Promise<TaskRecord> {
  const store = t.app.deps.tasks.store;
  const task = await store.createTask({
    accountId: owner.accountId,
    keyId: owner.keyId,
    title: 'Planning',
    type: 'transcribe',
    typeSource: 'realtime',
    recognitionMode: 'multi_speaker',
    transcriptionLanguages: ['en-US'],
    translationLanguages: null,
    durationMs: 60_000,
    ...options,
    processingStatus: 'processing',
  });
  const rows: SentenceInput[] = sentences.map((origin, i) => ({
    sid: i + 1,
    origin,
    startMs: i * 5000,
    endMs: i * 5000 + 4000,
    speakerId: String((i % 2) + 1),
  }));
  if (rows.length) await store.appendSentences(task.taskId, rows);
  const status = options.status ?? 'completed';
  if (status !== 'processing') await store.setStatus(task.taskId, status);
  return (await store.getTask(task.taskId)) as TaskRecord;
}

// biome-ignore lint/suspicious/noExplicitAny: tests read payloads freely
export type Ev = { event: string; data: any };

export interface OpenStream {
  status: number;
  headers: Headers;
  /** The JSON body of a response that is not a stream (errors before the stream opens). */
  // biome-ignore lint/suspicious/noExplicitAny: tests read payloads freely
  json: any;
  /** Resolves with the next event, or null at the end of the stream. */
  next(): Promise<Ev | null>;
  /** Reads to the end; every event read so far and after. */
  all(): Promise<Ev[]>;
}

/** A real SSE client over fetch: GET with query, or POST with a JSON body. */
export async function openStream(
  url: string,
  o: { method?: 'GET' | 'POST'; key?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<OpenStream> {
  const headers: Record<string, string> = { accept: 'text/event-stream', ...(o.headers ?? {}) };
  if (o.key) headers['x-api-key'] = o.key;
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, {
    method: o.method ?? 'GET',
    headers,
    body: o.body === undefined ? undefined : typeof o.body === 'string' ? o.body : JSON.stringify(o.body),
  });
  const isStream = (res.headers.get('content-type') ?? '').includes('text/event-stream');
  const seen: Ev[] = [];
  if (!isStream) {
    const text = await res.text();
    return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : null, next: async () => null, all: async () => [] };
  }
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let ended = false;
  const next = async (): Promise<Ev | null> => {
    for (;;) {
      const cut = buffer.indexOf('\n\n');
      if (cut >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const e = parseSseBlock(block);
        if (e) {
          seen.push(e);
          return e;
        }
        continue;
      }
      if (ended) return null;
      const { value, done } = await reader.read();
      if (done) ended = true;
      else buffer += decoder.decode(value, { stream: true });
    }
  };
  return {
    status: res.status,
    headers: res.headers,
    json: null,
    next,
    async all() {
      while (await next()) {}
      return seen;
    },
  };
}

/** The usage rows of an account, as GET /api/v1/me/usage shows them. */
export async function usageRows(t: TestApp, key: string) {
  const res = await fetch(`${t.url}/api/v1/me/usage?per_page=20`, { headers: { 'x-api-key': key } });
  // biome-ignore lint/suspicious/noExplicitAny: tests read payloads freely
  return ((await res.json()) as any).data as Array<{ task_id: string | null; type: string; points: number; refunded: boolean }>;
}
