/**
 * A sentence correction (src/corrections, docs/corrections.md) as broadcast viewers get it:
 * `sentence_corrected` {sid, revision, kind, text, previous_text, translations (every
 * translation language), translation_errors, speaker_id (multi-speaker only), speaker_label,
 * start_time (mm:ss from go-live)}. A viewer replaces the sentence's caption (and its
 * translation in the viewer's language) with the new text; no new caption appears.
 */
import type { SentenceCorrected } from '../stream/events.js';
import type { ViewerEvent } from './viewer-events.js';

export function viewerCorrection(
  c: SentenceCorrected,
  speaker: { speaker_id: string | null; speaker_label: string | null },
  startTime: string,
  diarized: boolean,
): ViewerEvent {
  const data: Record<string, unknown> = {
    sid: c.sid,
    revision: c.revision,
    kind: c.kind,
    text: c.text,
    previous_text: c.previous_text,
    translations: c.translations,
    translation_errors: c.translation_errors,
    speaker_label: speaker.speaker_label,
    start_time: startTime,
  };
  if (diarized) data.speaker_id = speaker.speaker_id;
  return { event: 'sentence_corrected', data };
}
