/**
 * The pieces of a correction that run without a server: the caption stores of the viewer page
 * (web/captions.js) and the console (web/console/captions.ts) replace a corrected sentence in
 * place; a broadcast late joiner's replay carries a sentence's corrections after it; the undo
 * plan walks back one change at a time; the text rules.
 */
import { describe, expect, it } from 'vitest';
import { replayOf } from '../../src/broadcasts/viewer-stream.js';
import { parseCorrection } from '../../src/corrections/rules.js';
import { planUndo } from '../../src/corrections/service.js';
import type { RevisionRecord } from '../../src/corrections/store.js';
// @ts-expect-error: a browser module without types
import { Captions } from '../../web/captions.js';
import { applyCaptionEvent, type Caption } from '../../web/console/captions.js';

const corrected = (sid: number, text: string, es: string, kind = 'correction', revision = 1) => ({
  sid,
  revision,
  kind,
  text,
  previous_text: '',
  translations: { es },
  translation_errors: {},
  speaker_id: null,
  start_time: '00:01',
  task_id: 't',
});

describe('corrections without a server', () => {
  it('viewer page store: the sentence and its translation are replaced; an unknown sentence is ignored', () => {
    const c = new Captions();
    c.apply('origin', { sid: 1, text: 'The whether', is_final: true });
    c.apply('translation', { sid: 1, language: 'es', text: 'El si', is_final: true });
    expect(c.apply('sentence_corrected', corrected(1, 'The weather', 'El tiempo'))).toBe(true);
    expect(c.apply('sentence_corrected', corrected(7, 'Never shown', 'Nunca'))).toBe(false);
    const [e] = c.list();
    expect([c.list().length, e.text, e.translations.get('es').text]).toEqual([1, 'The weather', 'El tiempo']);
  });

  it('console store: replaced in place, marked corrected until an undo', () => {
    let m = new Map<number, Caption>([[1, { sid: 1, text: 'The whether', final: true, speaker: null, translations: { es: 'El si' } }]]);
    m = applyCaptionEvent(m, { action: 'sentence_corrected', data: corrected(1, 'The weather', 'El tiempo') } as never)!;
    expect(m.get(1)).toMatchObject({ text: 'The weather', translations: { es: 'El tiempo' }, corrected: true });
    m = applyCaptionEvent(m, { action: 'sentence_corrected', data: corrected(1, 'The whether', 'El si', 'undo', 2) } as never)!;
    expect(m.get(1)).toMatchObject({ text: 'The whether', translations: { es: 'El si' }, corrected: false });
    expect(applyCaptionEvent(m, { action: 'sentence_corrected', data: corrected(9, 'x', 'y') } as never)).toBeNull();
  });

  it('broadcast replay: a kept sentence comes with its corrections after it; a dropped one without', () => {
    const origin = (sid: number) => ({ event: 'origin', data: { sid, text: `s${sid}`, is_final: true } });
    const log = [origin(1), { event: 'sentence_corrected', data: { sid: 1, text: 'c1' } }];
    for (let sid = 2; sid <= 7; sid++) log.push(origin(sid));
    log.push({ event: 'sentence_corrected', data: { sid: 6, text: 'c6' } });
    const replay = replayOf(log).map((e) => `${e.event}:${e.data.sid}`);
    expect(replay).toEqual(['origin:3', 'origin:4', 'origin:5', 'origin:6', 'origin:7', 'sentence_corrected:6']);
  });

  it('undo walks back one change at a time, then has nothing to undo; a stale revision is refused', () => {
    const rev = (revision: number, basedOn: number | null, origin: string): RevisionRecord => ({
      revision,
      kind: revision === 0 ? 'recognized' : 'correction',
      basedOn,
      origin,
      translations: null,
      translationErrors: null,
      createdAt: '',
    });
    const history = [rev(0, null, 'a'), rev(1, 0, 'b'), rev(2, 1, 'c')];
    expect(planUndo(history, null)).toMatchObject({ current: 2, basedOn: 0, version: { origin: 'b' } });
    const afterOne = [...history, { ...rev(3, 0, 'b'), kind: 'undo' as const }];
    expect(planUndo(afterOne, 3)).toMatchObject({ current: 3, basedOn: null, version: { origin: 'a' } });
    const afterTwo = [...afterOne, { ...rev(4, null, 'a'), kind: 'undo' as const }];
    expect(() => planUndo(afterTwo, null)).toThrowError(expect.objectContaining({ code: 'sentence_nothing_to_undo' }));
    expect(() => planUndo([], null)).toThrowError(expect.objectContaining({ code: 'sentence_nothing_to_undo' }));
    expect(() => planUndo(history, 1)).toThrowError(expect.objectContaining({ code: 'sentence_revision_conflict' }));
  });

  it('text: trimmed, line breaks to spaces, counted in characters (not UTF-16 units)', () => {
    expect(parseCorrection({ text: '  Two\nlines\t here ' }).text).toBe('Two lines  here');
    expect(parseCorrection({ text: '😀'.repeat(2000) }).text).toHaveLength(4000);
    expect(() => parseCorrection({ text: '😀'.repeat(2001) })).toThrowError(expect.objectContaining({ code: 'sentence_text_too_long' }));
    expect(() => parseCorrection({ text: 'ok', revision: 1.5 })).toThrowError(expect.objectContaining({ code: 'validation_failed' }));
  });
});
