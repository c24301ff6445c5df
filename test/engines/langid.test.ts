import { describe, expect, it } from 'vitest';
import { textLanguageIdFactory } from '../../src/engines/builtin/text-language-id.js';
import type { TextLanguageIdentifier } from '../../src/engines/types.js';

const lid = (await textLanguageIdFactory.create({} as never)) as TextLanguageIdentifier;

describe('text language identification (tinyld + Chinese script)', () => {
  it.each([
    ['Please send me the quarterly report before Friday afternoon.', 'en'],
    ['Por favor, envíame el informe trimestral antes del viernes por la tarde.', 'es'],
    ["Merci de m'envoyer le rapport trimestriel avant vendredi après-midi.", 'fr'],
    ['Bitte schicken Sie mir den Quartalsbericht vor Freitagnachmittag.', 'de'],
    ['金曜日の午後までに四半期報告書を送ってください。', 'ja'],
    ['금요일 오후까지 분기 보고서를 보내 주세요.', 'ko'],
    ['請在星期五下午之前把季度報告寄給我。', 'zh-TW'],
    ['请在星期五下午之前把季度报告发给我。', 'zh-CN'],
  ])('%s -> %s', async (text, expected) => {
    const [best] = await lid.identify(text);
    expect(best?.language).toBe(expected);
    expect(best!.confidence).toBeGreaterThan(0);
  });

  it('candidates restrict the answer and come back with their own tags', async () => {
    const guesses = await lid.identify('Please send me the report before Friday.', ['es-ES', 'en-US']);
    expect(guesses[0]?.language).toBe('en-US');
    expect(guesses.every((g) => ['es-ES', 'en-US'].includes(g.language))).toBe(true);
  });

  it('Chinese with candidates picks the candidate of the detected script', async () => {
    const [best] = await lid.identify('這個會議的決定已經確認了。', ['zh-CN', 'zh-HK', 'en']);
    expect(best?.language).toBe('zh-HK');
  });
});
