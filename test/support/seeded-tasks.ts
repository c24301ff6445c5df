/**
 * For the language-service suites (retranslation, TTS stream): engines built from their
 * factories, a funded key, and a finished task seeded straight into the store with three
 * short English sentences (optionally with Spanish translations).
 */
import { loadConfig } from '../../src/config.js';
import type { EngineFactory } from '../../src/engines/registry.js';
import type { AnyEngine } from '../../src/engines/types.js';
import { createLogger } from '../../src/platform/logging.js';
import type { SentenceInput, TaskRecord } from '../../src/tasks/store.js';
import type { TestApp } from './app.js';

export const SENTENCES: SentenceInput[] = [
  { sid: 1, origin: 'The house is big.', startMs: 0, endMs: 1500, language: 'en-US' },
  { sid: 2, origin: 'My brother eats an apple.', startMs: 1500, endMs: 3000, language: 'en-US' },
  { sid: 3, origin: 'We live in a small town.', startMs: 3000, endMs: 4500, language: 'en-US' },
];

export async function engineFrom(factory: EngineFactory, env: Record<string, string> = {}): Promise<AnyEngine> {
  const ctx = { config: loadConfig(env), modelsDir: '/nowhere', logger: createLogger('silent'), loaded: [] };
  const e = await factory.create(ctx as never);
  if ('unavailable' in e) throw new Error(`${factory.id}: ${e.unavailable}`);
  return e as AnyEngine;
}

export interface Account {
  key: string;
  accountId: string;
  keyId: string;
}

export async function fundedAccount(t: TestApp, credit: number, name = 'language services'): Promise<Account> {
  const k = await t.app.deps.keys.createKey({ name });
  if (credit > 0) await t.app.deps.billing.grantCredit({ accountId: k.account_id, points: credit, pool: 'account' });
  return { key: k.api_key, accountId: k.account_id, keyId: k.key_id };
}

export async function seedTask(
  t: TestApp,
  a: Account,
  o: { type?: TaskRecord['type']; status?: 'completed' | 'processing'; sentences?: SentenceInput[]; es?: Record<number, string> } = {},
): Promise<string> {
  const store = t.app.deps.tasks.store;
  const task = await store.createTask({
    accountId: a.accountId,
    keyId: a.keyId,
    title: 'Meeting',
    type: o.type ?? 'transcribe',
    typeSource: 'import',
    recognitionMode: 'single',
    transcriptionLanguages: ['en-US'],
    translationLanguages: o.es ? ['es'] : null,
    durationMs: 4500,
    processingStatus: 'processing',
  });
  await store.appendSentences(task.taskId, o.sentences ?? SENTENCES);
  if (o.es)
    await store.setTranslations(
      task.taskId,
      'es',
      Object.entries(o.es).map(([sid, text]) => ({ sid: Number(sid), text })),
    );
  if ((o.status ?? 'completed') === 'completed') await store.setStatus(task.taskId, 'completed');
  return task.taskId;
}
