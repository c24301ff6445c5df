import { describe, expect, it } from 'vitest';
import { handleProfanity } from '../../src/engines/text/profanity.js';

describe('profanity_handling', () => {
  it('mask (the default) keeps the first letter and stars the rest', () => {
    expect(handleProfanity('What the fuck is this shit?', 'en-US')).toBe('What the f*** is this s***?');
    expect(handleProfanity('Fucking hell', 'en', 'mask')).toBe('F****** hell');
  });

  it('remove drops the word and the space it leaves', () => {
    expect(handleProfanity('This is shit, really.', 'en', 'remove')).toBe('This is, really.');
    expect(handleProfanity('Das ist Scheiße heute', 'de', 'remove')).toBe('Das ist heute');
  });

  it('show leaves the text unchanged', () => {
    expect(handleProfanity('What the fuck', 'en', 'show')).toBe('What the fuck');
  });

  it('matches whole words only', () => {
    expect(handleProfanity('Scunthorpe has a shitake stall; a dickens novel', 'en')).toBe(
      'Scunthorpe has a shitake stall; a dickens novel',
    );
  });

  it('uses the list of the text language only', () => {
    expect(handleProfanity('Qué mierda, joder', 'es')).toBe('Qué m*****, j****');
    expect(handleProfanity("C'est de la merde, putain", 'fr-FR')).toBe("C'est de la m****, p*****");
    // "dick" is German for "thick": not profane in German.
    expect(handleProfanity('Das Buch ist dick', 'de')).toBe('Das Buch ist dick');
  });

  it('Chinese words are masked character by character, as substrings', () => {
    expect(handleProfanity('你這個王八蛋真是他媽的煩', 'zh-TW')).toBe('你這個***真是***煩');
    expect(handleProfanity('你这个傻逼', 'zh-CN', 'remove')).toBe('你这个');
  });

  it('languages without a list pass through', () => {
    expect(handleProfanity('fuck', 'ja')).toBe('fuck');
  });
});
