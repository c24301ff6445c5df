/**
 * One live recording: the task record, the recognizer stream, real-time translation of
 * finals, the audio kept on disk as it arrives (WAV in the data dir's temp folder), and the
 * finalizer (recording -> uploading -> processing -> completed, audio stored as M4A).
 */
import { randomUUID } from 'node:crypto';
import { closeSync, createReadStream, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { encodeFile } from '../engines/audio/ffmpeg.js';
import { WebmStreamDecoder } from '../engines/audio/stream.js';
import type { EngineRegistry } from '../engines/registry.js';
import type { RecognizerStream, SttResult } from '../engines/types.js';
import type { Principal } from '../platform/auth/types.js';
import { AppError } from '../platform/errors/app-error.js';
import type { BlobStore } from '../storage/types.js';
import type { TaskService } from '../tasks/service.js';
import type { SentenceInput, TaskStore, TranslationInput } from '../tasks/store.js';
import type { StartRequest } from './start.js';

/** Consecutive sentence failures before translation_service_unavailable is reported. */
export const TRANSLATION_FAILURES_BEFORE_UNAVAILABLE = 3;
const BYTES_PER_MS = 32; // 16 kHz * 2 bytes / 1000

export interface RecordingDeps {
  tasks: TaskStore;
  /** Final outcomes go through the task service: it publishes task.completed / task.failed (webhooks). */
  outcomes: Pick<TaskService, 'complete' | 'fail'>;
  engines: EngineRegistry;
  blobs: BlobStore;
  logger: Logger;
  tempDir: string;
  ffmpegPath: string;
  /** Per-minute billing of live audio (P2's billing service). */
  billing: {
    minuteMs: number;
    startUsage(principal: Principal, taskId: string): Promise<string>;
    /** Throws auth_quota_exceeded when the budget cannot cover the minute. */
    chargeMinute(usageId: string, index: number, start: StartRequest): Promise<void>;
    endUsage(usageId: string): Promise<void>;
  };
  /** Sends a voice-translation event or an error to the client. */
  emit(action: string, payload: Record<string, unknown>): void;
  error(err: AppError): void;
}

export function mmss(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

export class Recording {
  readonly sessionId = randomUUID();
  taskId = '';
  private stream: RecognizerStream | null = null;
  /** For audio_format webm: decodes MediaRecorder chunks to PCM (E1's streaming decoder). */
  private webm: WebmStreamDecoder | null = null;
  private wavFd = -1;
  private wavPath = '';
  private bytes = 0;
  private sid = 0;
  private readonly sentences: SentenceInput[] = [];
  private readonly translations = new Map<string, TranslationInput[]>();
  private readonly pending = new Set<Promise<void>>();
  private failuresInRow = 0;
  private usageId = '';
  private minutesCharged = 0;
  private charging: Promise<void> | null = null;
  /** Set when credit ran out: the connection stops the recording. */
  onQuotaExceeded: () => void = () => {};

  constructor(
    private readonly deps: RecordingDeps,
    private readonly principal: Principal,
    readonly start: StartRequest,
  ) {}

  async begin(): Promise<void> {
    const s = this.start;
    const task = await this.deps.tasks.createTask({
      accountId: this.principal.accountId,
      keyId: this.principal.keyId,
      title: s.name ?? `Recording ${new Date().toISOString().slice(0, 16).replace('T', ' ')}`,
      nameSource: s.name ? 'user' : 'auto',
      type: s.type,
      typeSource: 'realtime',
      recognitionMode: 'single',
      processingStatus: 'recording',
      transcriptionLanguages: s.transcriptionLanguages,
      translationLanguages: s.translationLanguages,
    });
    this.taskId = task.taskId;
    this.usageId = await this.deps.billing.startUsage(this.principal, this.taskId);
    // Minute 0 is charged at start; minute n when audio reaches n billing minutes.
    await this.deps.billing.chargeMinute(this.usageId, 0, this.start);
    this.minutesCharged = 1;
    mkdirSync(this.deps.tempDir, { recursive: true });
    this.wavPath = join(this.deps.tempDir, `${this.sessionId}.wav`);
    this.wavFd = openSync(this.wavPath, 'w');
    writeSync(this.wavFd, wavHeader(0));
    const language = s.transcriptionLanguages[0] as string;
    const recognizer = this.deps.engines.streamingRecognizer(language);
    if (!recognizer) throw new AppError('invalid_parameter', { variant: 'websocket', details: { field: 'transcription_languages' } });
    this.stream = await recognizer.open({
      language,
      interimResults: true,
      onResult: (r) => this.onResult(language, r),
      onError: (err) => {
        this.deps.logger.error({ err }, 'recognizer failed');
        this.deps.error(new AppError('internal_error', { variant: 'websocket', message: 'Speech recognition failed.' }));
      },
    });
  }

  /** Client audio in the start's format: PCM goes straight in, WebM through the decoder. */
  write(chunk: Buffer): void {
    if (this.start.audioFormat === 'pcm') {
      this.writePcm(chunk);
      return;
    }
    this.webm ??= new WebmStreamDecoder({
      ffmpegPath: this.deps.ffmpegPath,
      onPcm: (pcm) => this.writePcm(Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength)),
      // The recording goes on: the client may send a fresh container.
      onError: (err) => this.deps.error(new AppError('audio_decode_failed', { variant: 'websocket', details: { reason: err.message } })),
    });
    this.webm.write(chunk);
  }

  /** 16 kHz s16le mono. Odd trailing bytes are dropped (a sample is two bytes). */
  private writePcm(pcm: Buffer): void {
    const even = pcm.length - (pcm.length % 2);
    if (even === 0 || !this.stream) return;
    writeSync(this.wavFd, pcm, 0, even);
    this.bytes += even;
    const copy = new Int16Array(even / 2);
    for (let i = 0; i < copy.length; i++) copy[i] = pcm.readInt16LE(i * 2);
    this.stream.write(copy);
    if (this.durationMs >= this.minutesCharged * this.deps.billing.minuteMs && !this.charging) this.chargeNext();
  }

  private chargeNext(): void {
    const index = this.minutesCharged++;
    this.charging = this.deps.billing
      .chargeMinute(this.usageId, index, this.start)
      .catch((err) => {
        this.deps.logger.info({ err: (err as Error).message, minute: index }, 'minute not covered');
        this.deps.error(new AppError('stt_quota_exceeded', { variant: 'websocket', details: { minute: index } }));
        this.onQuotaExceeded();
      })
      .finally(() => {
        this.charging = null;
      });
  }

  private onResult(language: string, r: SttResult): void {
    const text = r.text.trim();
    if (!text) return;
    const sid = this.sid;
    this.deps.emit('result', {
      origin: {
        sid,
        language,
        text,
        is_final: r.isFinal,
        speaker_id: r.speakerId ?? null,
        detected_language: r.detectedLanguage ?? null,
        start_time: mmss(r.startMs),
      },
    });
    if (!r.isFinal) return;
    this.sid++;
    this.sentences.push({ sid, origin: text, startMs: r.startMs, endMs: r.endMs, language });
    if (this.start.realtimeTranslation)
      for (const to of this.start.translationLanguages) this.track(this.translate(sid, text, language, to));
  }

  private track(p: Promise<void>): void {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  private async translate(sid: number, text: string, from: string, to: string): Promise<void> {
    const list = this.translations.get(to) ?? [];
    this.translations.set(to, list);
    try {
      const translator = this.deps.engines.translator(from, to);
      if (!translator) throw new Error(`no translator ${from}->${to}`);
      const out = await translator.translate(text, { from, to });
      this.failuresInRow = 0;
      list.push({ sid, text: out });
      this.deps.emit('translation', { sid, language: to, text: out, is_final: true });
    } catch (err) {
      this.deps.logger.warn({ err: (err as Error).message, sid, to }, 'translation failed');
      list.push({ sid, error: 'translation_failed' } as TranslationInput);
      // Sentence-level: carries sid, never ends the session.
      this.deps.error(new AppError('translation_failed', { variant: 'websocket', sid, details: { language: to } }));
      if (++this.failuresInRow === TRANSLATION_FAILURES_BEFORE_UNAVAILABLE) {
        this.deps.error(new AppError('translation_service_unavailable', { variant: 'websocket', details: { language: to } }));
      }
    }
  }

  get durationMs(): number {
    return Math.round(this.bytes / BYTES_PER_MS);
  }

  /** Ends recognition, stores audio, transcript and translations, and completes the task. */
  async finish(): Promise<'completed' | 'failed'> {
    await this.webm?.end();
    await this.stream?.end();
    this.stream = null;
    await Promise.all([...this.pending]);
    await this.charging;
    if (this.usageId) await this.deps.billing.endUsage(this.usageId).catch((err) => this.deps.logger.error({ err }, 'endUsage failed'));
    writeSync(this.wavFd, wavHeader(this.bytes), 0, 44, 0);
    closeSync(this.wavFd);
    const tasks = this.deps.tasks;
    try {
      if (this.bytes === 0) {
        await this.deps.outcomes.fail(this.taskId, { source: 'no_audio', code: 'no_audio', message: 'No audio was received.' });
        return 'failed';
      }
      await tasks.setStatus(this.taskId, 'uploading');
      this.deps.emit('status', { status: 'uploading', task_id: this.taskId });
      const m4a = `${this.wavPath}.m4a`;
      await encodeFile({ path: this.wavPath }, m4a, 'm4a', { ffmpegPath: this.deps.ffmpegPath });
      const key = `tasks/${this.taskId}/audio.m4a`;
      await this.deps.blobs.put(key, createReadStream(m4a));
      rmSync(m4a, { force: true });
      await tasks.setAudio(this.taskId, key, this.durationMs);
      await tasks.setStatus(this.taskId, 'processing');
      this.deps.emit('status', { status: 'processing', task_id: this.taskId });
      if (this.sentences.length) await tasks.appendSentences(this.taskId, this.sentences);
      for (const [lang, entries] of this.translations) if (entries.length) await tasks.setTranslations(this.taskId, lang, entries);
      await this.deps.outcomes.complete(this.taskId, { durationMs: this.durationMs });
      return 'completed';
    } catch (err) {
      this.deps.logger.error({ err }, 'finalize failed');
      await this.deps.outcomes.fail(this.taskId, { source: 'processing' }).catch(() => {});
      return 'failed';
    } finally {
      rmSync(this.wavPath, { force: true });
    }
  }

  /** begin() failed part way (e.g. the first minute not covered): undo what it made. */
  async abandon(): Promise<void> {
    this.abort();
    if (this.wavFd >= 0) closeSync(this.wavFd);
    if (this.wavPath) rmSync(this.wavPath, { force: true });
    if (this.usageId) await this.deps.billing.endUsage(this.usageId).catch(() => {});
    if (this.taskId) await this.deps.outcomes.fail(this.taskId, { source: 'no_audio', code: 'start_refused' }).catch(() => {});
  }

  /** The connection vanished or the server stops: drop recognition, keep what was recorded. */
  abort(): void {
    this.webm?.abort();
    this.stream?.abort();
    this.stream = null;
  }
}

function wavHeader(dataBytes: number): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0);
  h.writeUInt32LE(36 + dataBytes, 4);
  h.write('WAVEfmt ', 8);
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(16_000, 24);
  h.writeUInt32LE(32_000, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36);
  h.writeUInt32LE(dataBytes, 40);
  return h;
}
