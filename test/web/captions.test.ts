/**
 * The caption stores of the viewer page (web/captions.js) and the console (web/console/captions.ts):
 * a final of empty text withdraws the sentence (src/realtime/sentence-ids.ts); the pages that
 * draw them are driven in a browser by web.test.ts and console.test.ts.
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a browser module without types
import { Captions } from '../../web/captions.js';
import { applyCaptionEvent, type Caption } from '../../web/console/captions.js';

describe('caption stores', () => {
  it('viewer: an empty final drops the sentence; later ones stay', () => {
    const c = new Captions();
    c.apply('origin', { sid: 1, text: 'uh the', is_final: false });
    c.apply('origin', { sid: 2, text: 'Hello', is_final: false });
    expect(c.apply('origin', { sid: 1, text: '', is_final: true })).toBe(true);
    expect(c.list().map((e: { sid: number; text: string }) => [e.sid, e.text])).toEqual([[2, 'Hello']]);
  });

  it('console: an empty final drops the sentence; a final with text is kept', () => {
    const origin = (sid: number, text: string, is_final: boolean) =>
      ({
        action: 'result',
        data: { origin: { sid, text, is_final, language: 'en', speaker_id: null, detected_language: null, start_time: '00:00' } },
      }) as never;
    let m = new Map<number, Caption>();
    m = applyCaptionEvent(m, origin(1, 'uh the', false))!;
    m = applyCaptionEvent(m, origin(2, 'Hello.', true))!;
    m = applyCaptionEvent(m, origin(1, '', true))!;
    expect([...m.values()].map((c) => [c.sid, c.text, c.final])).toEqual([[2, 'Hello.', true]]);
  });
});
