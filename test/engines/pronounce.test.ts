/** Pronunciations for glossary words the CMU dictionary lacks: eSpeak NG IPA to CMU phones. */
import { describe, expect, it } from 'vitest';
import { dictionaryWord, ipaToCmu, pronounce } from '../../src/engines/builtin/pocketsphinx/pronounce.js';
import { MAX_VOCABULARY_WORDS, vocabularyFor } from '../../src/engines/builtin/pocketsphinx/vocabulary.js';

describe('IPA to CMU phones', () => {
  it('maps eSpeak en-us output: stress and length dropped, diphthongs and affricates as one phone', () => {
    expect(ipaToCmu('p_ˈiː_k_oʊ_v_ˌɔɪ_s')).toEqual(['P', 'IY', 'K', 'OW', 'V', 'OY', 'S']);
    expect(ipaToCmu('k_j_ˈuː_b_ɚ_n_ˌiː_t_s')).toEqual(['K', 'Y', 'UW', 'B', 'ER', 'N', 'IY', 'T', 'S']);
    expect(ipaToCmu('tʃ_ˈɜː_tʃ')).toEqual(['CH', 'ER', 'CH']);
    expect(ipaToCmu('dʒ_ˌiː_p_ˌiː_t_ˈiː  f_ˈoːɹ')).toEqual(['JH', 'IY', 'P', 'IY', 'T', 'IY', 'F', 'AO', 'R']);
    expect(ipaToCmu('ʔ')).toBeNull();
  });

  it('dictionary spelling: lowercase, edge punctuation removed, anything but Latin letters refused', () => {
    expect(dictionaryWord('Picovoice,')).toBe('picovoice');
    expect(dictionaryWord('GPT-4')).toBe('gpt-4');
    expect(dictionaryWord('(ok)')).toBe('ok');
    expect(dictionaryWord('北京')).toBeNull();
    expect(dictionaryWord('--')).toBeNull();
  });
});

describe('vocabulary from glossary terms (espeak-ng)', () => {
  it('only words the dictionary lacks get a pronunciation; the key names the set', async () => {
    expect((await pronounce(['picovoice'])).get('picovoice')).toEqual(['P', 'IY', 'K', 'OW', 'V', 'OY', 'S']);
    const v = await vocabularyFor(['Picovoice', 'voice recognition', 'Kubernetes cluster']);
    expect(v.words.map((w) => w.word)).toEqual(['kubernetes', 'picovoice']);
    expect(v.key).toBe('kubernetes picovoice');
    expect((await vocabularyFor(['the country'])).key).toBe('');
    expect((await vocabularyFor(undefined)).words).toEqual([]);
  });

  it('at most 16 added words (more crash this PocketSphinx version), the glossary order deciding', async () => {
    const terms = Array.from({ length: 30 }, (_, i) => `Zorblax${String.fromCharCode(97 + i)}`);
    const v = await vocabularyFor(terms);
    expect(v.words).toHaveLength(MAX_VOCABULARY_WORDS);
    expect(MAX_VOCABULARY_WORDS).toBe(16);
    expect(v.words.map((w) => w.word)).toContain('zorblaxa');
    expect(v.words.map((w) => w.word)).not.toContain('zorblaxz');
  });
});
