/** Imports test helpers: real built-in engines, multipart uploads with fetch, an incremental SSE reader. */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { apertiumFactory } from '../../src/engines/builtin/apertium.js';
import { classicDiarizerFactory } from '../../src/engines/builtin/diarizer/index.js';
import { extractiveSummarizerFactory } from '../../src/engines/builtin/extractive-summarizer.js';
import { pocketsphinxFileFactory } from '../../src/engines/builtin/pocketsphinx/index.js';
import { EngineRegistry } from '../../src/engines/registry.js';
import type { AnyEngine } from '../../src/engines/types.js';
import type { CreatedKey } from '../../src/keys/service.js';
import { createLogger } from '../../src/platform/logging.js';
import { api, type TestApp } from '../support/app.js';
import { parseSseBlock } from '../support/sse.js';

/** PocketSphinx (file), Apertium, the extractive summarizer and the classic diarizer: what a fresh machine has. */
export async function builtinImportEngines(): Promise<EngineRegistry> {
  const ctx = { config: loadConfig({}), modelsDir: '/nowhere', logger: createLogger('silent') };
  const out: AnyEngine[] = [];
  for (const f of [pocketsphinxFileFactory, apertiumFactory, extractiveSummarizerFactory, classicDiarizerFactory]) {
    const e = await f.create(ctx as never);
    if ('unavailable' in e) throw new Error(`${f.id} unavailable: ${e.unavailable}`);
    out.push(e as AnyEngine);
  }
  return EngineRegistry.fromEngines(out);
}

export interface UploadInput {
  file?: { path?: string; bytes?: Buffer; name?: string } | null;
  fields?: Record<string, string>;
}

/** POST /api/v1/imports as a browser would (multipart/form-data built by fetch). */
export async function upload(base: string, key: string, input: UploadInput) {
  const form = new FormData();
  for (const [k, v] of Object.entries({ transcription_languages: '["en-US"]', recognition_mode: 'single', ...(input.fields ?? {}) })) {
    form.append(k, v);
  }
  if (input.file !== null) {
    const f = input.file ?? {};
    const bytes = f.bytes ?? readFileSync(f.path as string);
    form.append('file', new Blob([bytes]), f.name ?? (f.path ? basename(f.path) : 'audio.bin'));
  }
  const res = await fetch(`${base}/api/v1/imports`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
  const text = await res.text();
  // biome-ignore lint/suspicious/noExplicitAny: tests read bodies freely
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* keep text */
  }
  return { status: res.status, body };
}

export interface SseEvent {
  event: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read payloads freely
  data: any;
  at: number;
}

/** Opens an SSE stream and records events as they arrive; `done` resolves when the server ends it. */
export function watchSse(url: string, headers: Record<string, string> = {}) {
  const events: SseEvent[] = [];
  const controller = new AbortController();
  const done = (async () => {
    const res = await fetch(url, { headers, signal: controller.signal });
    if (!res.ok || !res.body) throw new Error(`SSE ${res.status}: ${await res.text()}`);
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      let at = buffer.indexOf('\n\n');
      while (at >= 0) {
        const block = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        const e = parseSseBlock(block);
        if (e) events.push({ ...e, at: performance.now() });
        at = buffer.indexOf('\n\n');
      }
    }
    return events;
  })();
  return { events, done, close: () => controller.abort() };
}

/** A new API key whose account holds `points` of credit. */
export async function fundedKey(t: TestApp, points = 10_000): Promise<CreatedKey> {
  const key = await t.app.deps.keys.createKey({ name: 'k' });
  await t.app.deps.billing.grantCredit({ accountId: key.account_id, points, pool: 'account' });
  return key;
}

/** Polls GET /imports/:id until the import is completed or failed; returns it as its owner sees it. */
export async function settledImport(t: TestApp, key: CreatedKey, importId: string, timeoutMs = 60_000) {
  for (const end = Date.now() + timeoutMs; Date.now() < end; ) {
    const res = await api(t.url, 'GET', `/api/v1/imports/${importId}`, { key: key.api_key });
    if (res.body.data.status === 'completed' || res.body.data.status === 'failed') return res.body.data;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`import ${importId} did not finish`);
}
