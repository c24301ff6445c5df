/**
 * The TTS stream of a transcript (`GET /api/v1/sse/tts/{taskId}`): sentences `sid` to
 * `sid + length - 1` spoken in `language`, one MP3 per sentence with word boundaries.
 *
 * The text spoken is the sentence itself when `language` is its language, else its stored
 * translation, else a translation made now (saved into the transcript and billed like a
 * retranslation of those sentences, usage type `retranslate`). Synthesis itself is not
 * charged (the spec's usage types have none for it). A sentence that cannot be translated or
 * spoken is reported with its sid and recorded (`translation_errors`); the stream goes on.
 * The next sentence is prepared while the current one is sent, so a client playing sentence
 * by sentence does not wait between them. Decisions: docs/language-services.md.
 */
import type { Logger } from 'pino';
import type { BillingService } from '../billing/service.js';
import type { EngineRegistry } from '../engines/registry.js';
import type { Synthesizer, Voice, WordBoundary } from '../engines/types.js';
import { baseLanguage, normalizeLanguage } from '../languages.js';
import { PlanService } from '../plans/service.js';
import type { Principal } from '../platform/auth/types.js';
import { AppError } from '../platform/errors/app-error.js';
import type { ErrorCode } from '../platform/errors/registry.js';
import { translateOne } from '../processing/translate.js';
import { chargeRetranslation } from '../retranslate/service.js';
import type { TaskService } from '../tasks/service.js';
import type { SentenceRecord, TaskRecord, TranslationInput } from '../tasks/store.js';
import type { TtsService } from './service.js';

/** Spec limit "tts_play length": at most 20 sentences per request. */
export const TTS_MAX_LENGTH = 20;
/** The plan feature that covers text to speech (plan-bound unlimited plans). */
const TTS_FEATURE = 'tts';

export interface TtsStreamDeps {
  tasks: TaskService;
  tts: TtsService;
  engines: EngineRegistry;
  billing: BillingService;
  logger: Logger;
}

export interface TtsQuery {
  language?: unknown;
  voice?: unknown;
  sid?: unknown;
  length?: unknown;
}

interface Line {
  sentence: SentenceRecord;
  /** The text to speak when it is known already (own language or stored translation). */
  known: string | null;
}

export interface TtsJob {
  task: TaskRecord;
  language: string;
  engine: Synthesizer;
  voice: Voice;
  lines: Line[];
  /** The charge for the translations made now (none needed: null). */
  usageId: string | null;
}

export interface TtsAudio {
  sid: number;
  language: string;
  /** The sentence as transcribed. */
  transcript: string;
  /** What is spoken (the translation, or the transcript in its own language). */
  text: string;
  audio: string;
  format: 'mp3';
  duration_ms: number;
  boundaries: WordBoundary[];
}

export interface TtsSink {
  audio(a: TtsAudio): Promise<void>;
  failed(sid: number, code: ErrorCode, details: Record<string, unknown>): void;
}

export interface TtsOutcome {
  sids: number[];
  spoken: number;
  /** Per sid, the code of a sentence that could not be translated or spoken. */
  errors: Record<string, string>;
}

/** A positive integer query value, its default when absent; 422 validation_failed otherwise. */
function intParam(raw: unknown, field: string, fallback: number, max: number): number {
  if (raw === undefined) return fallback;
  const n = typeof raw === 'string' && /^[0-9]{1,9}$/.test(raw) ? Number(raw) : Number.NaN;
  if (Number.isSafeInteger(n) && n >= 1 && n <= max) return n;
  throw new AppError('validation_failed', {
    message: max === Number.MAX_SAFE_INTEGER ? `${field} must be an integer from 1.` : `${field} must be an integer from 1 to ${max}.`,
    details: { field, location: 'querystring', ...(max === Number.MAX_SAFE_INTEGER ? {} : { max }) },
  });
}

export class TtsStreamService {
  constructor(private readonly deps: TtsStreamDeps) {}

  /** Every check (and the charge for translations to make) before the stream opens. */
  async prepare(principal: Principal, taskId: string, q: TtsQuery): Promise<TtsJob> {
    const task = await this.deps.tasks.owned(principal, taskId);
    const language = typeof q.language === 'string' && q.language.length <= 35 ? normalizeLanguage(q.language) : null;
    if (!language) {
      throw new AppError('tts_invalid_language', {
        message:
          q.language === undefined || q.language === '' ? 'language is required.' : 'language must be a language code such as es or en-US.',
        details: { field: 'language' },
      });
    }
    if (q.voice !== undefined && (typeof q.voice !== 'string' || q.voice === '')) {
      throw new AppError('validation_failed', {
        message: 'voice must be a voice name.',
        details: { field: 'voice', location: 'querystring' },
      });
    }
    const { engine, voice } = this.deps.tts.voiceFor(language, q.voice as string | undefined);
    const sid = intParam(q.sid, 'sid', 1, Number.MAX_SAFE_INTEGER);
    const length = intParam(q.length, 'length', 1, TTS_MAX_LENGTH);
    if (task.processingStatus !== 'completed' && task.processingStatus !== 'failed') {
      throw new AppError('invalid_processing_status', {
        message: 'The transcript can be spoken once the recording is completed (or failed).',
        details: { processing_status: task.processingStatus },
      });
    }
    const store = this.deps.tasks.store;
    const sentences = (await store.listSentences(task.taskId, sid - 1, length)).filter((s) => s.sid < sid + length);
    if (sentences.length === 0) {
      const any = (await store.listSentences(task.taskId, null, 1)).length > 0;
      throw any
        ? new AppError('sse_sentence_not_found', { details: { task_id: task.taskId, sid, length } })
        : new AppError('sse_transcript_not_found', { details: { task_id: task.taskId } });
    }
    const source = task.transcriptionLanguages?.[0] ?? 'en';
    const lines = sentences.map((s): Line => {
      const own = baseLanguage(s.language ?? source) === baseLanguage(language) && !language.startsWith('zh');
      const sameTag = (s.language ?? source) === language;
      return { sentence: s, known: own || sameTag ? s.origin : (s.translations?.[language] ?? null) };
    });
    const toTranslate = lines.filter((l) => l.known === null).length;
    if (toTranslate > 0 && task.type === 'record') {
      throw new AppError('record_translation_not_allowed', { details: { field: 'language', language } });
    }

    const standing = await this.deps.billing.standing(principal);
    PlanService.assertFeature(standing.plan, TTS_FEATURE, 'tts');
    let usageId: string | null = null;
    if (toTranslate > 0) {
      ({ usageId } = await chargeRetranslation(this.deps.billing, principal, {
        taskId: task.taskId,
        sentences: toTranslate,
        languages: 1,
      }));
    }
    return { task, language, engine, voice, lines, usageId };
  }

  /** Translates what is missing, speaks each sentence in order, saves the translations. */
  async run(job: TtsJob, sink: TtsSink, signal: AbortSignal): Promise<TtsOutcome> {
    const source = job.task.transcriptionLanguages?.[0] ?? 'en';
    const translations: TranslationInput[] = [];
    const outcome: TtsOutcome = { sids: job.lines.map((l) => l.sentence.sid), spoken: 0, errors: {} };

    type Made = { ok: true; audio: TtsAudio } | { ok: false; code: ErrorCode; details: Record<string, unknown> };
    const make = async (line: Line): Promise<Made> => {
      const s = line.sentence;
      let text = line.known;
      if (text === null) {
        const r = await translateOne(this.deps, s, s.language ?? source, job.language, null);
        if (r.error) {
          translations.push({ sid: s.sid, error: r.error });
          return { ok: false, code: r.error as ErrorCode, details: { translation_language: job.language } };
        }
        text = r.text ?? '';
        translations.push({ sid: s.sid, text });
      }
      try {
        const r = await job.engine.synthesize(text, { language: job.language, voice: job.voice.voice_name, signal });
        if (r.mp3.length === 0 && text.trim() !== '') throw new Error('no audio');
        return {
          ok: true,
          audio: {
            sid: s.sid,
            language: job.language,
            transcript: s.origin,
            text,
            audio: r.mp3.toString('base64'),
            format: 'mp3',
            duration_ms: r.durationMs,
            boundaries: r.boundaries,
          },
        };
      } catch (err) {
        if (signal.aborted) throw err;
        this.deps.logger.warn({ err, sid: s.sid, engine: job.engine.id }, 'sentence not spoken');
        return { ok: false, code: 'tts_synthesis_failed', details: { language: job.language, voice_name: job.voice.voice_name } };
      }
    };

    try {
      // One sentence ahead: the next is translated and synthesized while this one is sent.
      let next: Promise<Made> | null = job.lines[0] ? make(job.lines[0]) : null;
      for (let i = 0; i < job.lines.length && next; i++) {
        const current = await next;
        next = job.lines[i + 1] && !signal.aborted ? make(job.lines[i + 1]!) : null;
        next?.catch(() => {}); // awaited on the next turn; an abort in between must not go unhandled
        const sid = job.lines[i]!.sentence.sid;
        if (current.ok) {
          await sink.audio(current.audio);
          outcome.spoken++;
        } else {
          outcome.errors[String(sid)] = current.code;
          sink.failed(sid, current.code, current.details);
        }
      }
    } finally {
      await this.settle(job, translations);
    }
    return outcome;
  }

  /** Saves the translations made (and their failures); refunds when every one failed. */
  private async settle(job: TtsJob, entries: TranslationInput[]): Promise<void> {
    const store = this.deps.tasks.store;
    try {
      if (entries.length) await store.setTranslations(job.task.taskId, job.language, entries);
      if (entries.some((e) => e.error === undefined)) await store.addTranslationLanguage(job.task.taskId, job.language);
    } catch (err) {
      this.deps.logger.error({ err, task_id: job.task.taskId }, 'TTS translations not saved');
    }
    if (job.usageId && !entries.some((e) => e.error === undefined)) {
      await this.deps.billing
        .refund(job.usageId, 'failed')
        .catch((err: unknown) => this.deps.logger.error({ err, usage_id: job.usageId }, 'TTS translation refund failed'));
    }
  }
}
