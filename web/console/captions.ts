/** The console's captions of a live session, by sentence id (no JSX: tested in Node, test/web/captions.test.ts). */
import type { LiveEvent } from '../../src/client/index.js';

export interface Caption {
  sid: number;
  text: string;
  final: boolean;
  speaker: string | null;
  translations: Record<string, string>;
  /** The latest change was a correction (an undo is offered). */
  corrected?: boolean;
}

/** The captions without an interim the recognizer never finished (it is not part of the transcript). */
export const finalCaptions = (captions: Map<number, Caption>) => new Map([...captions].filter(([, c]) => c.final));

/** Captions by sentence id, updated from live events (results, translations and corrections). */
export function applyCaptionEvent(captions: Map<number, Caption>, e: LiveEvent): Map<number, Caption> | null {
  if (e.action === 'result') {
    const o = e.data.origin;
    const before = captions.get(o.sid);
    // The first final of a sid counts (sids may repeat in the transcript).
    if (before?.final) return null;
    const next = new Map(captions);
    // A final of empty text withdraws a sentence that came to nothing.
    if (o.is_final && !o.text) next.delete(o.sid);
    else next.set(o.sid, { sid: o.sid, text: o.text, final: o.is_final, speaker: o.speaker_id, translations: before?.translations ?? {} });
    return next;
  }
  if (e.action === 'translation') {
    const d = e.data;
    const before = captions.get(d.sid) ?? { sid: d.sid, text: '', final: false, speaker: null, translations: {} };
    const next = new Map(captions);
    next.set(d.sid, { ...before, translations: { ...before.translations, [d.language]: d.text } });
    return next;
  }
  if (e.action === 'sentence_corrected') {
    // A correction (or an undo) replaces the sentence's text and translations in place.
    const d = e.data;
    const before = captions.get(d.sid);
    if (!before) return null;
    const next = new Map(captions);
    next.set(d.sid, {
      ...before,
      text: d.text,
      final: true,
      translations: Object.fromEntries(Object.entries(d.translations).map(([l, t]) => [l, String(t)])),
      corrected: d.kind === 'correction',
    });
    return next;
  }
  return null;
}
