/**
 * The engines a conformance suite runs against: every catalogue entry of one kind that can
 * run on this machine, built exactly as the service builds them (`CATALOG`, `loadConfig`).
 * Remote engines point at the local OpenAI-compatible server (test/support/openai-server.ts),
 * which answers from real built-in engines (PocketSphinx, eSpeak, Apertium, the extractive
 * summarizer) set up by each suite. Neural engines run when their models are downloaded
 * (PARLEY_MODELS_DIR or PARLEY_DATA_DIR/models); an unavailable engine shows up as a skipped
 * block naming the reason. A new catalogue line is therefore tested with no new test code.
 */
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { CATALOG } from '../../../src/engines/catalog.js';
import { type EngineContext, EngineRegistry } from '../../../src/engines/registry.js';
import type { AnyEngine, EngineKind } from '../../../src/engines/types.js';
import { type OpenAiServer, startOpenAiServer } from '../../support/openai-server.js';

export interface EngineSet<T extends AnyEngine> {
  server: OpenAiServer;
  ctx: EngineContext;
  engines: T[];
  unavailable: Array<{ id: string; reason: string }>;
  close(): Promise<void>;
}

export async function engineSet<T extends AnyEngine>(kind: EngineKind): Promise<EngineSet<T>> {
  const server = await startOpenAiServer();
  const env: Record<string, string | undefined> = {
    PARLEY_DATA_DIR: process.env.PARLEY_DATA_DIR,
    PARLEY_MODELS_DIR: process.env.PARLEY_MODELS_DIR,
    // The engine host's Python, where it is not the project's venv (a test venv).
    PARLEY_ENGINE_HOST_PYTHON: process.env.PARLEY_ENGINE_HOST_PYTHON,
    PARLEY_REMOTE_LLM_URL: server.url,
    PARLEY_REMOTE_STT_URL: server.url,
    PARLEY_REMOTE_TTS_URL: server.url,
    PARLEY_REMOTE_RETRIES: '0',
    PARLEY_POCKETSPHINX_DECODERS: '2',
  };
  const config = loadConfig(env);
  const ctx: EngineContext = {
    config,
    modelsDir: config.engines.modelsDir ?? join(config.platform.dataDir, 'models'),
    logger: pino({ level: 'silent' }),
    loaded: [],
  };
  // Built as the service builds them: the kinds an adapter uses (streaming faces wrap file recognizers) load too.
  const registry = await EngineRegistry.create(ctx, CATALOG, new Set([kind]));
  return {
    server,
    ctx,
    engines: registry.enginesOf(kind) as AnyEngine[] as T[],
    unavailable: registry.status.filter((s) => s.kind === kind && !s.available).map((s) => ({ id: s.id, reason: s.reason ?? '' })),
    /** Closes every engine twice (close must be idempotent: a second call may not throw), then the server. */
    async close() {
      const engines = registry.enginesOf(kind) as AnyEngine[];
      try {
        for (const e of engines) await e.close?.();
        for (const e of engines) await e.close?.();
      } finally {
        await registry.close();
        await server.close();
      }
    },
  };
}

/** Engine ids that must run here (CI sets PARLEY_TEST_REQUIRE_ENGINES, since its setup installs their weights). */
export const requiredEngines = (): string[] =>
  (process.env.PARLEY_TEST_REQUIRE_ENGINES ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * One describe block per available engine; one skipped block (with the reason) per unavailable
 * one, or a failing one when PARLEY_TEST_REQUIRE_ENGINES names it.
 */
export function forEachEngine<T extends AnyEngine>(set: EngineSet<T>, body: (engine: T) => void): void {
  for (const u of set.unavailable)
    if (requiredEngines().includes(u.id))
      describe(`${u.id} (required by PARLEY_TEST_REQUIRE_ENGINES)`, () => {
        it('is available', () => {
          throw new Error(`${u.id} is not available: ${u.reason}`);
        });
      });
    else
      describe.skip(`${u.id} (not available here: ${u.reason})`, () => {
        it('runs when the engine is available', () => {});
      });
  for (const e of set.engines) describe(`${e.id} (${e.tier})`, () => body(e));
}

/** Calls `p` and returns what it rejected with (undefined when it resolved). */
export async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (err: unknown) => err,
  );
}

/** An aborted call rejects with the signal's reason (AbortError) or a typed EngineError. */
export function isAbortOrEngineError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  return err.name === 'AbortError' || err.name === 'EngineError' || err.name === 'TimeoutError';
}

/**
 * Makes the local server's chat endpoint answer from real built-in engines: translation
 * prompts (as the LLM translator writes them) by `translate`, anything with a transcript
 * (summary prompts) by `summarize` over its lines.
 */
export function chatFromEngines(
  server: OpenAiServer,
  engines: { translate?: (text: string, from: string, to: string) => Promise<string>; summarize?: (lines: string[]) => Promise<string> },
): void {
  server.reply = async (messages) => {
    const system = messages.find((m) => m.role === 'system')?.content ?? '';
    const user = messages.at(-1)?.content ?? '';
    // "... from English (en) into Chinese (Taiwan) (zh-TW). ...": the tag is the last parenthesis of each name.
    const pair = /from (.+?) into (.+?)\. /.exec(system);
    const tag = (name: string) => /\(([^()]+)\)$/.exec(name)?.[1] ?? name;
    if (pair && engines.translate) return engines.translate(user, tag(pair[1]!), tag(pair[2]!));
    const transcript = user.split('Transcript:\n')[1];
    if (transcript !== undefined && engines.summarize) return engines.summarize(transcript.split('\n'));
    return 'No engine behind this prompt.';
  };
}
