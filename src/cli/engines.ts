/**
 * Run each engine from the command line, built exactly as the service builds them:
 *   npm run -s engines [-- list] [--json]      (per kind, which requirements each engine meets)
 *   npm run -s engines -- transcribe FILE --language en-US [--json]
 *   npm run -s engines -- translate --from en --to es [--json] "TEXT"
 *   npm run -s engines -- synthesize --language en-US --out FILE.mp3 [--voice NAME] [--rate 1.0] "TEXT"
 *   npm run -s engines -- summarize FILE.txt [--language en] [--json]
 * Exit codes: 0 success, 1 engine failure, 2 bad input or nothing serves the request.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Command } from 'commander';
import pino from 'pino';
import { loadConfig } from '../config.js';
import { createFfmpegAudio } from '../engines/audio/ffmpeg-audio.js';
import { createEngines } from '../engines/index.js';
import { ENGINE_KINDS, type Refusal } from '../engines/needs.js';
import type { EngineRegistry } from '../engines/registry.js';
import type { EngineKind } from '../engines/types.js';
import { normalizeLanguage } from '../languages.js';
import { requirementTable } from './engine-table.js';

class UsageError extends Error {}

function language(raw: string, flag: string): string {
  const tag = normalizeLanguage(raw);
  if (!tag) throw new UsageError(`${flag}: "${raw}" is not a BCP 47 language code`);
  return tag;
}

/** The registry's refusal plus what is served, e.g. "no speech synthesizer here serves xh; served: en-US, es". */
function unserved(refusal: Refusal, served: string[]): UsageError {
  return new UsageError(`${refusal.message}; served: ${served.length ? served.join(', ') : 'none'}`);
}

/**
 * Runs `fn` with the engines of `kinds` loaded (and what they depend on), or every engine when
 * none are named (`list`): a command that speaks with espeak need not start Whisper's host and
 * the language model first (10 s against 1 s here).
 */
async function withEngines<T>(kinds: EngineKind[] | undefined, fn: (engines: EngineRegistry) => Promise<T>): Promise<T> {
  const config = loadConfig();
  // Engine status lines go to stderr so stdout stays clean JSON.
  const logger = pino({ level: process.env.LOG_LEVEL ?? 'warn' }, pino.destination(2));
  const engines = await createEngines(config, logger, kinds ? new Set(kinds) : new Set(ENGINE_KINDS));
  try {
    return await fn(engines);
  } finally {
    await engines.close();
  }
}

function print(json: boolean | undefined, value: unknown, text: string): void {
  process.stdout.write(`${json ? JSON.stringify(value) : text}\n`);
}

export function buildProgram(): Command {
  const program = new Command('engines').description('Run Parley engines from the command line.').showHelpAfterError();

  program
    .command('list', { isDefault: true })
    .description(
      'Per engine kind, which requirements each engine meets (languages, interim results, word times, ...), or why it is unavailable.',
    )
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) =>
      withEngines(undefined, async (engines) => {
        const rows = engines.status.map((s) => ({
          id: s.id,
          kind: s.kind,
          tier: s.tier,
          available: s.available,
          ...(s.available
            ? { languages: s.languages, ...(s.pairs ? { pairs: s.pairs.map(([f, t]) => `${f}>${t}`) } : {}) }
            : { reason: s.reason }),
          capabilities: s.capabilities,
          summary: s.summary,
        }));
        const text = requirementTable(engines.status);
        print(o.json, { engines: rows, translation_pairs: engines.translationPairs().map(([f, t]) => `${f}>${t}`) }, text);
      }),
    );

  program
    .command('transcribe')
    .description('Transcribe an audio file (any format ffmpeg reads): text and words with times.')
    .argument('<file>')
    .requiredOption('--language <code>', 'spoken language, e.g. en-US')
    .option('--json', 'print JSON')
    .action(async (file: string, o: { language: string; json?: boolean }) =>
      withEngines(['file-stt'], async (engines) => {
        const lang = language(o.language, '--language');
        const selected = engines.select({ kind: 'file-stt', language: lang });
        if (!selected.ok) throw unserved(selected.refusal, engines.languagesFor('file-stt'));
        const stt = selected.engine;
        const config = loadConfig();
        const audio = await createFfmpegAudio(config.engines.ffmpegPath).decode(file);
        const t0 = performance.now();
        const r = await stt.transcribe(audio, { language: lang });
        const words = r.segments.flatMap((s) => s.words.map((w) => ({ text: w.text, start_ms: w.startMs, end_ms: w.endMs })));
        print(
          o.json,
          {
            engine: stt.id,
            language: lang,
            text: r.text,
            duration_ms: r.durationMs,
            processing_ms: Math.round(performance.now() - t0),
            words,
            segments: r.segments.map((s) => ({ text: s.text, start_ms: s.startMs, end_ms: s.endMs })),
          },
          r.text,
        );
      }),
    );

  program
    .command('translate')
    .description('Translate text (directly or through a pivot language).')
    .argument('<text>')
    .requiredOption('--from <code>', 'source language')
    .requiredOption('--to <code>', 'target language')
    .option('--json', 'print JSON')
    .action(async (text: string, o: { from: string; to: string; json?: boolean }) =>
      withEngines(['translator'], async (engines) => {
        const from = language(o.from, '--from');
        const to = language(o.to, '--to');
        const selected = engines.select({ kind: 'translator', from, to });
        if (!selected.ok)
          throw new UsageError(
            `no configured engine translates ${from} to ${to}; pairs: ${
              engines
                .translationPairs()
                .map(([a, b]) => `${a}>${b}`)
                .join(', ') || 'none'
            }`,
          );
        const t = selected.engine;
        const out = await t.translate(text, { from, to });
        print(o.json, { engine: t.id, from, to, text: out }, out);
      }),
    );

  program
    .command('synthesize')
    .description('Speak text to an MP3 file, with word boundaries.')
    .argument('<text>')
    .requiredOption('--language <code>', 'language of the text')
    .requiredOption('--out <file>', 'MP3 file to write')
    .option('--voice <name>', 'voice_name (default: the language default)')
    .option('--rate <n>', 'speaking rate 0.5-2.0', '1')
    .option('--json', 'print JSON (voice, duration, boundaries)')
    .action(async (text: string, o: { language: string; out: string; voice?: string; rate: string; json?: boolean }) =>
      withEngines(['tts'], async (engines) => {
        const lang = language(o.language, '--language');
        const selected = engines.select({ kind: 'tts', language: lang, voice: o.voice });
        if (!selected.ok) throw unserved(selected.refusal, engines.languagesFor('tts'));
        const tts = selected.engine;
        const r = await tts.synthesize(text, { language: lang, voice: o.voice, speakingRate: Number(o.rate) });
        writeFileSync(o.out, r.mp3);
        print(
          o.json,
          { engine: tts.id, out: o.out, bytes: r.mp3.length, duration_ms: r.durationMs, boundaries: r.boundaries },
          `${o.out}: ${r.mp3.length} bytes, ${r.durationMs} ms`,
        );
      }),
    );

  program
    .command('summarize')
    .description('Summarize a text file (one transcript segment per line).')
    .argument('<file>')
    .option('--language <code>', 'summary language', 'en')
    .option('--json', 'print JSON')
    .action(async (file: string, o: { language: string; json?: boolean }) =>
      withEngines(['summarizer'], async (engines) => {
        const lang = language(o.language, '--language');
        const selected = engines.select({ kind: 'summarizer', language: lang });
        if (!selected.ok) throw unserved(selected.refusal, engines.languagesFor('summarizer'));
        const s = selected.engine;
        const segments = readFileSync(file, 'utf8')
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean);
        const r = await s.summarize({ segments, language: lang, plainText: false });
        print(o.json, { engine: s.id, language: lang, text: r.text, usage: r.usage, truncated: r.truncated }, r.text);
      }),
    );
  return program;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  buildProgram()
    .parseAsync(process.argv)
    .catch((err: unknown) => {
      process.stderr.write(`engines: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = err instanceof UsageError ? 2 : 1;
    });
}
