/**
 * The in-session TTS of a recording (session-tts.ts), wired to the recording's sentences and
 * translations; `emit` sends tts_ready to whichever socket the session has now.
 */
import type { Logger } from 'pino';
import type { Recording, RecordingDeps } from '../recording.js';
import { SessionTts } from '../session-tts.js';
import type { TtsSettings } from '../tts-settings.js';

export interface SpeechOwner {
  engines: RecordingDeps['engines'];
  logger: Logger;
  emit(action: string, payload: Record<string, unknown>): void;
}

export function sessionSpeech(owner: SpeechOwner, rec: Recording, settings: TtsSettings): SessionTts {
  const speech = new SessionTts(
    {
      engines: owner.engines,
      logger: owner.logger,
      sentence: (sid, language) => {
        const origin = rec.sentences.find((s) => s.sid === sid)?.origin;
        const text = rec.translations.get(language)?.get(sid)?.text;
        return origin !== undefined && text !== undefined ? { transcript: origin, text } : null;
      },
      emit: (action, payload) => owner.emit(action, payload),
    },
    settings,
    // Conversation recordings speak in async mode only on tts_play.
    rec.start.type === 'conversation',
  );
  rec.events.attach((e) => speech.onEvent(e));
  return speech;
}
