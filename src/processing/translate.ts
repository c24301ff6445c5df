/**
 * Translation of a finished transcript into target languages, sentence by sentence, with the
 * glossary's dictionary. Shared by imports, live finalization (when real-time translation was
 * off), retranslation and retry. Sentences already translated for a language are skipped, so
 * a job that resumes after a restart does not redo (or re-bill) finished work. A sentence
 * that cannot be translated gets a `translation_errors` entry and the rest go on.
 */
import type { Logger } from 'pino';
import { EngineError } from '../engines/errors.js';
import type { EngineRegistry } from '../engines/registry.js';
import { dictionaryFor, type Glossary, translateWithDictionary } from '../glossary/index.js';
import type { SentenceRecord, TaskStore, TranslationInput } from '../tasks/store.js';

export interface TranslateTaskDeps {
  engines: EngineRegistry;
  tasks: TaskStore;
  logger: Logger;
}

export interface TranslateTaskOptions {
  /** Target languages (normalized tags). */
  languages: readonly string[];
  /** Source language of sentences that do not carry their own. */
  sourceLanguage: string;
  glossary?: Glossary | null;
  /** Re-translate sentences that already have a translation (retranslate). */
  overwrite?: boolean;
  /** Fraction 0..1 of the work done. */
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
}

export interface TranslateTaskResult {
  translated: number;
  failed: number;
}

/** Translates every sentence of a task; throws only when an engine reports a retryable failure on every sentence. */
export async function translateTask(deps: TranslateTaskDeps, taskId: string, o: TranslateTaskOptions): Promise<TranslateTaskResult> {
  const sentences: SentenceRecord[] = [];
  for await (const page of deps.tasks.allSentences(taskId)) sentences.push(...page);
  const total = Math.max(1, sentences.length * o.languages.length);
  let done = 0;
  const result: TranslateTaskResult = { translated: 0, failed: 0 };
  for (const to of o.languages) {
    const entries: TranslationInput[] = [];
    let retryable: EngineError | null = null;
    for (const s of sentences) {
      o.signal?.throwIfAborted();
      done++;
      const already = s.translations?.[to] !== undefined;
      if (already && !o.overwrite) continue;
      const from = s.language ?? o.sourceLanguage;
      const entry = await translateOne(deps, s, from, to, o.glossary ?? null);
      if (entry.error) {
        result.failed++;
        if (entry.retryable) retryable = entry.retryable;
      } else result.translated++;
      entries.push({ sid: s.sid, text: entry.text, error: entry.error });
      if (done % 20 === 0) o.onProgress?.(done / total);
    }
    // Every sentence failed with a temporary engine error: let the job retry the language.
    if (retryable && result.translated === 0 && entries.length > 0) throw retryable;
    if (entries.length) await deps.tasks.setTranslations(taskId, to, entries);
    o.onProgress?.(done / total);
  }
  return result;
}

/**
 * One sentence into `to` (the glossary's dictionary applied): its text, or the error code its
 * `translation_errors` entry gets (`retryable` set when the engine says a retry may succeed).
 * Shared by task translation and the retranslation endpoints.
 */
export async function translateOne(
  deps: Pick<TranslateTaskDeps, 'engines' | 'logger'>,
  s: SentenceRecord,
  from: string,
  to: string,
  glossary: Glossary | null,
): Promise<{ text?: string; error?: string; retryable?: EngineError }> {
  if (!s.origin.trim()) return { text: '' };
  const selected = deps.engines.select({ kind: 'translator', from, to });
  if (!selected.ok) return { error: 'translation_language_unsupported' };
  const translator = selected.engine;
  try {
    const entries = glossary ? dictionaryFor(glossary, to) : [];
    const text = await translateWithDictionary(s.origin, entries, (t) => translator.translate(t, { from, to }));
    return { text };
  } catch (err) {
    deps.logger.warn({ err: (err as Error).message, sid: s.sid, from, to }, 'sentence not translated');
    return { error: 'translation_failed', retryable: err instanceof EngineError && err.retryable ? err : undefined };
  }
}
