/** Conformance of every text language identifier: same sentences, accuracy under its limit. */
import { afterAll, expect, it } from 'vitest';
import type { TextLanguageIdentifier } from '../../../src/engines/types.js';
import { baseLanguage } from '../../../src/languages.js';
import { engineSet, forEachEngine } from './engines.js';
import { limit, MIN_LANGUAGE_ACCURACY } from './quality.js';

const set = await engineSet<TextLanguageIdentifier>('language-id');
afterAll(() => set.close());

const SENTENCES: Array<[string, string]> = [
  ['en', 'Please send me the report before the meeting on Friday.'],
  ['es', 'Por favor, envíame el informe antes de la reunión del viernes.'],
  ['fr', "Merci de m'envoyer le rapport avant la réunion de vendredi."],
  ['de', 'Bitte schicken Sie mir den Bericht vor dem Treffen am Freitag.'],
  ['it', 'Per favore, mandami il rapporto prima della riunione di venerdì.'],
  ['pt', 'Por favor, envie-me o relatório antes da reunião de sexta-feira.'],
  ['ru', 'Пожалуйста, пришлите мне отчёт до встречи в пятницу.'],
  ['ja', '金曜日の会議の前に報告書を送ってください。'],
  ['zh-CN', '请在星期五开会之前把报告发给我。'],
  ['zh-TW', '請在星期五開會之前把報告發給我。'],
];

forEachEngine(set, (engine) => {
  it('identifies the reference sentences, best guess first, confidences in [0, 1]', async () => {
    let right = 0;
    for (const [lang, text] of SENTENCES) {
      const guesses = await engine.identify(text);
      expect(guesses.length).toBeGreaterThan(0);
      for (const g of guesses) expect(g.confidence).toBeGreaterThanOrEqual(0);
      for (const g of guesses) expect(g.confidence).toBeLessThanOrEqual(1);
      for (let i = 1; i < guesses.length; i++) expect(guesses[i]!.confidence).toBeLessThanOrEqual(guesses[i - 1]!.confidence);
      const top = guesses[0]!.language;
      if (lang.startsWith('zh') ? top === lang : baseLanguage(top) === lang) right++;
    }
    expect(right / SENTENCES.length).toBeGreaterThanOrEqual(limit(MIN_LANGUAGE_ACCURACY, engine.id));
  });

  it('candidates restrict the answer and keep their own tags', async () => {
    const guesses = await engine.identify(SENTENCES[1]![1], ['en-US', 'es-MX']);
    for (const g of guesses) expect(['en-US', 'es-MX']).toContain(g.language);
    expect(guesses[0]?.language).toBe('es-MX');
  });

  it('empty or symbol-only text is no crash: no guess, or a typed EngineError', async () => {
    for (const text of ['', '   ', '123 !!! ...']) {
      const answer = await engine.identify(text).catch((err: unknown) => err);
      if (answer instanceof Error) expect(answer.name).toBe('EngineError');
      else expect(Array.isArray(answer)).toBe(true);
    }
  });
});
