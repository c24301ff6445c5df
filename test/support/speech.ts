/**
 * Real recorded speech in Spanish and French for the language tests: three of Asterisk's core
 * prompts per language (whole sentences said by one voice: es_MX "Allison", fr_CA "June";
 * Digium, CC BY-SA 3.0), fetched from Debian by scripts/setup-test-speech.sh (pinned sha256s)
 * and joined here into one clip of about 20 s. Not synthesized: Parley's other non-English
 * audio comes from its own TTS. The references are the package's own transcripts
 * (core-sounds-es.txt / -fr.txt) with the spelling put right (the Spanish file writes no
 * accents: "buzon", "Intentare"; the French one has "Veuillez demeurez"); no word was changed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { PcmAudio } from '../../src/engines/types.js';

const ROOT = join(import.meta.dirname, '..', '..');
export const SPEECH_DIR = process.env.PARLEY_TEST_SPEECH_DIR ?? join(ROOT, 'data', 'test-speech');

export type SpeechLanguage = 'es' | 'fr';

interface Prompt {
  file: string;
  text: string;
}

/** The prompts of each clip, in order, with their transcripts. */
export const PROMPTS: Record<SpeechLanguage, { tag: string; prompts: Prompt[] }> = {
  es: {
    tag: 'es-ES',
    prompts: [
      {
        file: 'queue-periodic-announce',
        text: 'Todos nuestros representantes se encuentran ocupados, por favor espere y pronto le atenderemos.',
      },
      { file: 'followme/status', text: 'La persona a quien ha llamado no se encuentra en su escritorio. Intentaré localizarla por usted.' },
      { file: 'vm-nobox', text: 'Usted no puede responder a este mensaje porque el usuario no tiene buzón para mensajes.' },
    ],
  },
  fr: {
    tag: 'fr-FR',
    prompts: [
      {
        file: 'queue-periodic-announce',
        text: 'Tous nos représentants sont présentement occupés. Veuillez demeurer en ligne et le prochain représentant disponible vous répondra sous peu.',
      },
      {
        file: 'followme/status',
        text: "La personne que vous désirez joindre n'est pas à son bureau, je vais tenter de la localiser pour vous.",
      },
      { file: 'vm-nobox', text: "Vous ne pouvez répondre à ce message car l'expéditeur ne possède pas de boîte vocale." },
    ],
  },
};

export interface SpeechClip {
  /** The session's tag for it (es-ES, fr-FR). */
  tag: string;
  /** 16 kHz mono signed 16-bit little-endian PCM. */
  pcm: Buffer;
  /** The same as samples. */
  audio: PcmAudio;
  text: string;
}

/** Makes sure the recordings are here: runs the fetch script when they are not (a failure throws, with its output). */
export function ensureSpeech(): void {
  if (Object.keys(PROMPTS).every((l) => existsSync(join(SPEECH_DIR, l, 'COPYRIGHT')))) return;
  execFileSync('bash', [join(ROOT, 'scripts', 'setup-test-speech.sh'), SPEECH_DIR], {
    stdio: ['ignore', 'inherit', 'inherit'],
    timeout: 300_000,
  });
}

/** One language's prompts joined with 0.8 s of silence between them (and 0.5 s before, 1 s after). */
export function speechClip(language: SpeechLanguage): SpeechClip {
  ensureSpeech();
  const { tag, prompts } = PROMPTS[language];
  const parts: Buffer[] = [silence(500)];
  for (const p of prompts) {
    // G.722 has no header: ffmpeg is told the format; it decodes to 16 kHz.
    const file = join(SPEECH_DIR, language, `${p.file}.g722`);
    parts.push(
      execFileSync('ffmpeg', ['-v', 'error', '-f', 'g722', '-i', file, '-f', 's16le', '-ar', '16000', '-ac', '1', 'pipe:1'], {
        maxBuffer: 16 << 20,
      }),
    );
    parts.push(silence(800));
  }
  parts.push(silence(200));
  const pcm = Buffer.concat(parts);
  // A copy: Int16Array needs an even offset, which a pooled Buffer does not promise.
  const ints = new Int16Array(pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + pcm.length));
  const samples = Float32Array.from(ints, (s) => s / 32768);
  return { tag, pcm, audio: { sampleRate: 16_000, samples }, text: prompts.map((p) => p.text).join(' ') };
}

/** `ms` of digital silence as 16 kHz s16le. */
export function silence(ms: number): Buffer {
  return Buffer.alloc(32 * ms);
}
