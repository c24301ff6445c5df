/**
 * Pronunciations for words the CMU dictionary lacks (glossary terms such as "Picovoice"):
 * eSpeak NG's English letter-to-sound rules give IPA phonemes (`espeak-ng -q --ipa --sep=_`,
 * one input line per word, one output line per word), mapped here to the 39 CMU phones of
 * the en-us acoustic model. Results are cached for the process: a term costs one lookup.
 */
import { execFile } from 'node:child_process';

/** IPA symbols (as eSpeak's en-us voice writes them, stress and length marks removed) to CMU phones. */
const IPA_TO_CMU: Record<string, string[]> = {
  // Diphthongs and r-coloured vowels first (longest match wins).
  aɪ: ['AY'],
  aʊ: ['AW'],
  eɪ: ['EY'],
  oʊ: ['OW'],
  əʊ: ['OW'],
  ɔɪ: ['OY'],
  ɑɹ: ['AA', 'R'],
  ɔɹ: ['AO', 'R'],
  oɹ: ['AO', 'R'],
  ɛɹ: ['EH', 'R'],
  eə: ['EH', 'R'],
  ɪɹ: ['IH', 'R'],
  iə: ['IY', 'AH'],
  ʊɹ: ['UH', 'R'],
  ʊə: ['UH', 'R'],
  aɪɚ: ['AY', 'ER'],
  aʊɚ: ['AW', 'ER'],
  tʃ: ['CH'],
  dʒ: ['JH'],
  i: ['IY'],
  ɪ: ['IH'],
  ᵻ: ['IH'],
  e: ['EY'],
  ɛ: ['EH'],
  æ: ['AE'],
  a: ['AA'],
  ɑ: ['AA'],
  ɒ: ['AA'],
  ɔ: ['AO'],
  o: ['OW'],
  ʊ: ['UH'],
  u: ['UW'],
  ʌ: ['AH'],
  ə: ['AH'],
  ɐ: ['AH'],
  ɚ: ['ER'],
  ɜ: ['ER'],
  p: ['P'],
  b: ['B'],
  t: ['T'],
  d: ['D'],
  ɾ: ['D'],
  k: ['K'],
  g: ['G'],
  ɡ: ['G'],
  x: ['K'],
  f: ['F'],
  v: ['V'],
  θ: ['TH'],
  ð: ['DH'],
  s: ['S'],
  z: ['Z'],
  ʃ: ['SH'],
  ʒ: ['ZH'],
  h: ['HH'],
  ç: ['HH'],
  m: ['M'],
  n: ['N'],
  ŋ: ['NG'],
  l: ['L'],
  ɫ: ['L'],
  ɹ: ['R'],
  r: ['R'],
  w: ['W'],
  ʍ: ['W'],
  j: ['Y'],
};
const SYMBOLS = Object.keys(IPA_TO_CMU).sort((a, b) => b.length - a.length);

/**
 * IPA from eSpeak (phonemes separated by "_", words by spaces) to CMU phones. Stress (ˈ ˌ),
 * length (ː), syllabic marks and joiners are dropped; a symbol without a CMU counterpart
 * (a glottal stop) is skipped. Returns null when nothing usable is left.
 */
export function ipaToCmu(ipa: string): string[] | null {
  const clean = ipa.normalize('NFC').replace(/ˈ|ˌ|ː|ˑ|\u0329|\u032F|\u200D|\u0361|-/g, '');
  const phones: string[] = [];
  for (const piece of clean.split(/[_\s]+/).filter(Boolean)) {
    let at = 0;
    while (at < piece.length) {
      const symbol = SYMBOLS.find((s) => piece.startsWith(s, at));
      if (symbol) {
        phones.push(...IPA_TO_CMU[symbol]!);
        at += symbol.length;
      } else at += 1;
    }
  }
  return phones.length ? phones : null;
}

/** Dictionary spelling of a word: lowercase letters, digits, apostrophes and inner hyphens. */
export function dictionaryWord(word: string): string | null {
  const w = word
    .normalize('NFKC')
    .toLowerCase()
    .replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}']+$/gu, '');
  return /^[a-z0-9][a-z0-9'-]*$/.test(w) ? w : null;
}

const cache = new Map<string, string[] | null>();

function espeak(lines: string[], espeakPath: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      espeakPath,
      ['-q', '-v', 'en-us', '--ipa', '--sep=_'],
      { timeout: 10_000, maxBuffer: 1 << 20, encoding: 'utf8' },
      (err, stdout) => (err ? reject(err) : resolve(stdout.split('\n').filter((l) => l.trim() !== ''))),
    );
    child.stdin?.end(`${lines.join('\n')}\n`);
  });
}

/**
 * CMU phones for each word (dictionary spelling); words eSpeak cannot pronounce are left
 * out. One eSpeak run for all uncached words; if its lines do not line up with the words
 * (an input it split or merged), each word is asked on its own.
 */
export async function pronounce(words: readonly string[], espeakPath = 'espeak-ng'): Promise<Map<string, string[]>> {
  const missing = [...new Set(words)].filter((w) => !cache.has(w));
  if (missing.length) {
    let lines = await espeak(missing, espeakPath).catch(() => [] as string[]);
    if (lines.length !== missing.length)
      lines = await Promise.all(
        missing.map((w) =>
          espeak([w], espeakPath).then(
            (l) => l.join(' '),
            () => '',
          ),
        ),
      );
    missing.forEach((w, i) => {
      cache.set(w, ipaToCmu(lines[i] ?? ''));
    });
  }
  const out = new Map<string, string[]>();
  for (const w of words) {
    const phones = cache.get(w);
    if (phones) out.set(w, phones);
  }
  return out;
}
