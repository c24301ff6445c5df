/**
 * In-session TTS for the owner of a live recording: final translations into the session's
 * `tts_language` are synthesized and sent as `tts_ready` {sid, language, transcript, text,
 * audio (base64 MP3), format, duration_ms, boundaries}. `sync`: every final is spoken, in
 * sentence order (one synthesis at a time); `async`: each is sent as soon as it is made (several
 * at once, order not kept), and in conversation recordings only on `tts_play`. `tts_play`
 * speaks given sentences again; `tts_stop` drops what waits and aborts what is being made.
 * Broadcast viewers get their own spoken translations (src/broadcasts); this is the owner's.
 */
import type { Logger } from 'pino';
import type { EngineRegistry } from '../engines/registry.js';
import type { SessionEvent } from '../stream/events.js';
import { synthesizerFor } from '../tts/voice-choice.js';
import type { TtsMode, TtsSettings } from './tts-settings.js';

/** Sentences waiting to be spoken; older ones are dropped beyond this (speech that late is no use). */
export const TTS_BACKLOG = 20;
/** tts_play: most sentences one request may ask for (spec). */
export const TTS_PLAY_MAX = 20;

export interface SessionTtsDeps {
  engines: Pick<EngineRegistry, 'enginesOf'>;
  logger: Logger;
  /** The source sentence and its translation into `language`, when both exist. */
  sentence(sid: number, language: string): { transcript: string; text: string } | null;
  emit(action: string, payload: Record<string, unknown>): void;
}

interface Item {
  sid: number;
  language: string;
  transcript: string;
  text: string;
}

export class SessionTts {
  private queue: Item[] = [];
  private draining = false;
  private readonly inFlight = new Set<AbortController>();
  /** Sentences spoken (tests and logs). */
  spoken = 0;

  constructor(
    private readonly deps: SessionTtsDeps,
    public settings: TtsSettings,
    private readonly conversation: boolean,
  ) {}

  /** The session stream's listener: final translations in the TTS language are spoken automatically. */
  onEvent(e: SessionEvent): void {
    if (e.event !== 'translation' || !e.data.is_final) return;
    const s = this.settings;
    if (!s.enabled || e.data.language !== s.language) return;
    if (s.mode === 'async' && this.conversation) return; // manual tts_play (spec)
    const found = this.deps.sentence(e.data.sid, e.data.language);
    this.speak({ sid: e.data.sid, language: e.data.language, transcript: found?.transcript ?? '', text: e.data.text });
  }

  /** tts_play: sentences sid .. sid+length-1 that have a translation in the TTS language; returns how many were queued. */
  play(sid: number, length: number): number {
    let queued = 0;
    for (let n = sid; n < sid + length; n++) {
      const found = this.deps.sentence(n, this.settings.language);
      if (!found) continue;
      this.speak({ sid: n, language: this.settings.language, ...found });
      queued++;
    }
    return queued;
  }

  /** tts_stop: what waits is dropped, what is being made is aborted. Returns how many were dropped. */
  stop(): number {
    const dropped = this.queue.length + this.inFlight.size;
    this.queue = [];
    for (const c of this.inFlight) c.abort();
    this.inFlight.clear();
    return dropped;
  }

  setMode(mode: TtsMode): void {
    this.settings = { ...this.settings, mode };
  }

  private speak(item: Item): void {
    if (!item.text.trim()) return;
    if (this.settings.mode === 'async') {
      void this.synthesize(item);
      return;
    }
    this.queue.push(item);
    if (this.queue.length > TTS_BACKLOG) this.queue.splice(0, this.queue.length - TTS_BACKLOG);
    if (!this.draining) void this.drain();
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      for (let item = this.queue.shift(); item; item = this.queue.shift()) await this.synthesize(item);
    } finally {
      this.draining = false;
    }
  }

  private async synthesize(item: Item): Promise<void> {
    const tts = synthesizerFor(this.deps.engines.enginesOf('tts'), item.language, this.settings.voice);
    if (!tts) return;
    const control = new AbortController();
    this.inFlight.add(control);
    const s = this.settings;
    try {
      const r = await tts.synthesize(item.text, {
        language: item.language,
        voice: s.voice ?? undefined,
        speakingRate: s.speakingRate,
        signal: control.signal,
      });
      if (control.signal.aborted || r.mp3.length === 0) return;
      this.spoken++;
      this.deps.emit('tts_ready', {
        sid: item.sid,
        language: item.language,
        transcript: item.transcript,
        text: item.text,
        audio: r.mp3.toString('base64'),
        format: 'mp3',
        duration_ms: Math.round(r.durationMs),
        boundaries: r.boundaries,
      });
    } catch (err) {
      if (!control.signal.aborted) this.deps.logger.warn({ err, sid: item.sid, language: item.language }, 'session speech not synthesized');
    } finally {
      this.inFlight.delete(control);
    }
  }
}
