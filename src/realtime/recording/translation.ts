/**
 * Real-time translation of one live recording: each final sentence into its targets (the
 * start's languages; a conversation side into the other side's language; multi_language
 * into every target but the sentence's own language) through the registry's translator with
 * the session glossary's dictionary, and `retranslate` of earlier sentences. A failure is
 * sentence-level (`translation_failed` with its sid) and never ends the session; the third in
 * a row is also reported as `translation_service_unavailable`. Its share of the fleet
 * snapshot: the translations so far.
 */
import type { Logger } from 'pino';
import type { EngineRegistry } from '../../engines/registry.js';
import { dictionaryFor, type Glossary, translateWithDictionary } from '../../glossary/index.js';
import { baseLanguage } from '../../languages.js';
import { AppError } from '../../platform/errors/app-error.js';
import type { SessionEventBody } from '../../stream/events.js';
import type { SentenceInput, TranslationInput } from '../../tasks/store.js';
import type { RecordingSnapshot } from '../live/snapshot.js';
import type { StartRequest } from '../start.js';
import { candidateLanguages, type Talk } from './recognition.js';

/** Consecutive sentence failures before translation_service_unavailable is reported. */
export const TRANSLATION_FAILURES_BEFORE_UNAVAILABLE = 3;

export type TranslationSnapshot = Pick<RecordingSnapshot, 'translations'>;

export interface TranslationDeps {
  engines: EngineRegistry;
  logger: Logger;
  /** Sends an error to the owner's client (sentence-level translation errors). */
  error(err: AppError): void;
  /** Onto the session stream (every audience). */
  publish(event: SessionEventBody): void;
  /** The session glossary now (its dictionary applies to each translation). */
  glossary(): Glossary | null;
}

export class Translation {
  /** Per target language, per sid (a retranslation replaces the entry). */
  readonly translations = new Map<string, Map<number, TranslationInput>>();
  private failuresInRow = 0;
  /** Translations under way (settle() waits for them). */
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly d: TranslationDeps,
    private readonly start: StartRequest,
    /** Conversation recordings: who speaks which language (owned by recognition, read here). */
    private readonly talk: Talk | null,
  ) {}

  /** A final sentence: into each of its targets when the session translates in real time. */
  final(s: SentenceInput, recognizedSpeaker: string | undefined): void {
    if (!this.start.realtimeTranslation) return;
    const language = s.language as string;
    for (const to of this.targetsOf(language, recognizedSpeaker)) this.track(this.translate(s.sid, s.origin, language, to));
  }

  /** Where a final goes: a conversation side into the other side's language, else the start's targets. */
  private targetsOf(language: string, speakerId: string | undefined): readonly string[] {
    if (candidateLanguages(this.start)) return this.start.translationLanguages.filter((to) => baseLanguage(to) !== baseLanguage(language));
    if (!this.talk) return this.start.translationLanguages;
    const other = this.talk.speakers.find((sp) => sp.speakerId !== speakerId)?.language;
    return other && other !== language ? [other] : [];
  }

  /** retranslate: the final sentences `sids` (all when null) of `sentences` again into `targets` (e.g. after a glossary change). */
  async retranslate(
    sentences: readonly SentenceInput[],
    sids: number[] | null,
    targets: readonly string[],
    fallbackLanguage: string,
  ): Promise<{ updated: number; failed: number }> {
    const chosen = sentences.filter((s) => sids === null || sids.includes(s.sid));
    let updated = 0;
    let failed = 0;
    for (const s of chosen)
      for (const to of targets) {
        const p = this.translate(s.sid, s.origin, s.language ?? fallbackLanguage, to);
        this.track(p);
        if (await p) updated++;
        else failed++;
      }
    return { updated, failed };
  }

  private track(p: Promise<unknown>): void {
    const settled = p.then(() => {});
    this.pending.add(settled);
    void settled.finally(() => this.pending.delete(settled));
  }

  /** Resolves once every translation under way has settled. */
  async settle(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  /**
   * `text` into `to` as every translation of this session is made: the registry's translator
   * with the session glossary's dictionary as it is now. Finals use it; so do the audiences
   * that translate the sentence being spoken (broadcast interim translations), so an interim
   * and its final agree on the glossary's terms. Throws when no engine serves the pair.
   */
  async text(text: string, from: string, to: string): Promise<string> {
    const selected = this.d.engines.select({ kind: 'translator', from, to });
    if (!selected.ok) throw new Error(selected.refusal.message);
    const engine = selected.engine;
    const glossary = this.d.glossary();
    const entries = glossary ? dictionaryFor(glossary, to) : [];
    return translateWithDictionary(text, entries, (t) => engine.translate(t, { from, to }));
  }

  /** Translates one final sentence; a failure is sentence-level (carries sid) and never ends the session. */
  private async translate(sid: number, text: string, from: string, to: string): Promise<boolean> {
    const list = this.translations.get(to) ?? new Map<number, TranslationInput>();
    this.translations.set(to, list);
    const selected = this.d.engines.select({ kind: 'translator', from, to });
    const translator = selected.ok ? selected.engine : undefined;
    try {
      const out = await this.text(text, from, to);
      this.failuresInRow = 0;
      list.set(sid, { sid, text: out });
      this.d.publish({ event: 'translation', data: { sid, language: to, text: out, is_final: true } });
      return true;
    } catch (err) {
      this.d.logger.warn({ err: (err as Error).message, sid, to }, 'translation failed');
      list.set(sid, { sid, error: 'translation_failed' });
      this.d.error(new AppError('translation_failed', { variant: 'websocket', sid, details: { translation_language: to } }));
      if (++this.failuresInRow === TRANSLATION_FAILURES_BEFORE_UNAVAILABLE) {
        this.d.error(
          new AppError('translation_service_unavailable', {
            variant: 'websocket',
            details: {
              provider: translator?.id ?? null,
              translation_language: to,
              last_error_code: 'translation_failed',
              fail_count: this.failuresInRow,
            },
          }),
        );
      }
      return false;
    }
  }

  snapshot(): TranslationSnapshot {
    return { translations: Object.fromEntries([...this.translations].map(([lang, m]) => [lang, [...m.values()]])) };
  }

  /** A recording continued here: the translations its earlier holders made. */
  restore(snap: TranslationSnapshot): void {
    for (const [lang, list] of Object.entries(snap.translations)) this.translations.set(lang, new Map(list.map((t) => [t.sid, t])));
  }
}
