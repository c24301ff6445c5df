/** Readable text from recognizer words: pauses, glossary rewrite, capitals, end punctuation. */
import { describe, expect, it } from 'vitest';
import { capitalize, punctuateByPauses, readableText } from '../../src/engines/text/readable.js';
import { applyGlossary, type Glossary } from '../../src/glossary/index.js';

const words = (spec: Array<[string, number, number]>) => spec.map(([text, startMs, endMs]) => ({ text, startMs, endMs }));

describe('readable text', () => {
  it('a final gets commas and full stops from pauses, capitals, "I" and an end full stop', () => {
    const w = words([
      ['and', 0, 200],
      ['so', 210, 400],
      ['i', 420, 500],
      ["i'm", 520, 700],
      ['here', 1000, 1300],
      ['now', 2000, 2300],
      ['ok', 2320, 2500],
    ]);
    expect(punctuateByPauses(w)).toBe("and so i i'm, here. now ok");
    expect(readableText({ text: w.map((x) => x.text).join(' '), words: w, isFinal: true }, 'en-US')).toBe("And so I I'm, here. Now ok.");
  });

  it('interims get capitals only; text that already has punctuation is not punctuated again', () => {
    expect(readableText({ text: 'what i said', isFinal: false }, 'en')).toBe('What I said');
    expect(readableText({ text: 'Hello there. how are you?', isFinal: true }, 'en')).toBe('Hello there. How are you?');
  });

  it('glossary terms keep their written form, even at the start of a sentence', () => {
    const glossary: Glossary = {
      terminology: { en: [{ term: 'iPhone' }, { term: 'Picovoice' }] },
      fuzzyCorrection: {},
      translationDict: {},
    };
    const rewrite = (t: string) => applyGlossary(t, 'en', glossary);
    expect(readableText({ text: 'iphone and picovoice', isFinal: true }, 'en', { rewrite })).toBe('iPhone and Picovoice.');
  });

  it('only English gets "I"; Chinese finals end with 。 and get no pause commas', () => {
    expect(capitalize('i am', 'fr')).toBe('I am');
    expect(capitalize('je suis i', 'fr')).toBe('Je suis i');
    const w = words([
      ['你好', 0, 300],
      ['世界', 900, 1200],
    ]);
    expect(readableText({ text: '你好 世界', words: w, isFinal: true }, 'zh-CN')).toBe('你好 世界。');
  });
});
