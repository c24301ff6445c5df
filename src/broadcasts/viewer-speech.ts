/**
 * Spoken translations for a broadcast's viewers (`tts_ready`, spec "SSE: broadcast viewer").
 * Runs on the host's node, beside the recording: each final translation of the live phase is
 * synthesized once, in its language, and the audio is published on the broadcast's viewer
 * topic, from where every node's viewer streams hand it to their `tts=true` viewers. So the
 * cost is one synthesis per sentence per language, whatever the number of viewers or nodes.
 *
 * Sentences of one language are synthesized one after the other (a queue per language), so
 * viewers get them in order; languages run side by side. A failed synthesis skips that
 * sentence's audio; its listeners get an `error` event (tts_synthesis_failed with the sid and
 * translation_language); captions are not affected.
 */
import type { Logger } from 'pino';
import type { Synthesizer } from '../engines/types.js';
import { AppError } from '../platform/errors/app-error.js';
import type { TtsSetting } from './rules.js';
import { sentenceErrorEvent, type ViewerEvent } from './viewer-events.js';

export interface ViewerSpeechDeps {
  /** The synthesizer serving `language` here (the engine registry's choice), or null. */
  synthesizer(language: string, voice?: string | null): Synthesizer | null;
  /** The TTS settings of the broadcast for `language` (voice, speaking_rate), if any. */
  setting(language: string): TtsSetting | undefined;
  /** Whether audio may still go out (the broadcast is live, not paused or frozen). */
  live(): boolean;
  publish(event: ViewerEvent): Promise<void>;
  now: () => Date;
  logger: Logger;
}

export interface FinalTranslation {
  sid: number;
  language: string;
  /** The source sentence (the origin caption). */
  transcript: string;
  text: string;
}

/** Most sentences that may wait for synthesis per language; older ones are skipped (audio that late is no use). */
export const SPEECH_BACKLOG = 20;

export class ViewerSpeech {
  private readonly queues = new Map<string, FinalTranslation[]>();
  private readonly running = new Set<string>();
  /** Sentences synthesized, per language (the host session's tests and logs read it). */
  readonly synthesized = new Map<string, number>();

  constructor(private readonly deps: ViewerSpeechDeps) {}

  /** The languages viewers can listen to: the translation languages a synthesizer serves here. */
  static languages(translationLanguages: readonly string[], synthesizer: (language: string) => Synthesizer | null): string[] {
    return translationLanguages.filter((l) => synthesizer(l) !== null);
  }

  /** A final translation of the live phase: queued for its one synthesis. */
  add(t: FinalTranslation): void {
    if (!t.text.trim() || !this.deps.synthesizer(t.language)) return;
    const queue = this.queues.get(t.language) ?? [];
    queue.push(t);
    if (queue.length > SPEECH_BACKLOG) queue.splice(0, queue.length - SPEECH_BACKLOG);
    this.queues.set(t.language, queue);
    if (!this.running.has(t.language)) void this.drain(t.language);
  }

  private async drain(language: string): Promise<void> {
    this.running.add(language);
    try {
      const queue = this.queues.get(language)!;
      for (let t = queue.shift(); t; t = queue.shift()) {
        if (!this.deps.live()) continue;
        const event = await this.speak(t);
        // The host may have paused or dropped while the audio was made: live phase only.
        if (event && this.deps.live()) await this.deps.publish(event);
      }
    } finally {
      this.running.delete(language);
    }
  }

  private async speak(t: FinalTranslation): Promise<ViewerEvent | null> {
    const setting = this.deps.setting(t.language);
    const tts = this.deps.synthesizer(t.language, setting?.voice);
    if (!tts) return null;
    try {
      const r = await tts.synthesize(t.text, {
        language: t.language,
        voice: setting?.voice ?? undefined,
        speakingRate: setting?.speaking_rate,
      });
      this.synthesized.set(t.language, (this.synthesized.get(t.language) ?? 0) + 1);
      if (r.mp3.length === 0) return null;
      return {
        event: 'tts_ready',
        data: {
          sid: t.sid,
          language: t.language,
          transcript: t.transcript,
          text: t.text,
          audio: r.mp3.toString('base64'),
          format: 'mp3',
          duration_ms: Math.round(r.durationMs),
          boundaries: r.boundaries,
        },
      };
    } catch (err) {
      this.deps.logger.warn({ err, sid: t.sid, language: t.language }, 'viewer speech not synthesized');
      return sentenceErrorEvent(new AppError('tts_synthesis_failed', { variant: 'sse' }), t.sid, t.language, this.deps.now());
    }
  }
}
