/**
 * Language section of the engine benchmark, with the engines the catalog gives on this
 * machine (built-in tier unless remote/neural ones are configured):
 * - translation latency per sentence, warm (the process of the pair already running), en->es
 *   directly and en->fr through the Spanish pivot, p50/p95 over 20 sentences;
 * - TTS time to first byte for a short sentence: the whole MP3 of the sentence is ready at
 *   once (eSpeak renders a sentence in ~10 ms, then a pre-started ffmpeg encodes), so TTFB =
 *   time to the finished MP3; target <= 100 ms with sentences arriving 300 ms apart (as in a
 *   live session), back-to-back for information;
 * - text language id and the extractive summary, for information.
 */
import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import { CATALOG } from '../../src/engines/catalog.js';
import { EngineRegistry } from '../../src/engines/registry.js';
import { atMost, type BenchRow } from './types.js';

const LANGUAGE_KINDS = new Set(['translator', 'tts', 'language-id', 'summarizer']);

const SENTENCES = [
  'The meeting starts at nine tomorrow morning.',
  'Please send me the report before Friday.',
  'Our new product will launch in March.',
  'The customer asked for a lower price.',
  'We need two more engineers on this project.',
  'Can you share the slides after the call?',
  'The budget was approved by the board last week.',
  'Sales grew by ten percent in the second quarter.',
  'I will be out of the office on Monday.',
  'The train to Barcelona leaves at six.',
  'Let us schedule a follow-up meeting next week.',
  'The server was down for two hours yesterday.',
  'Thank you all for your hard work this year.',
  'The contract must be signed before the end of the month.',
  'She explained the results of the survey.',
  'Our team will visit the factory in Valencia.',
  'The weather forecast says it will rain today.',
  'Please update the documentation for the new release.',
  'The hotel is close to the conference center.',
  'We agreed to test the new design with users.',
];

function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? Number.NaN;
}

const round = (n: number) => Math.round(n * 10) / 10;

export async function run(): Promise<BenchRow[]> {
  const config = loadConfig();
  const registry = await EngineRegistry.create(
    { config, modelsDir: '', logger: pino({ level: 'silent' }) },
    CATALOG.filter((f) => LANGUAGE_KINDS.has(f.kind)),
  );
  const rows: BenchRow[] = [];
  try {
    for (const [from, to] of [
      ['en', 'es'],
      ['en', 'fr'],
    ] as const) {
      const t = registry.find({ kind: 'translator', from: from, to: to });
      if (!t) {
        rows.push({ name: `translation ${from}->${to}: no engine serves the pair`, value: Number.NaN, unit: 'ms' });
        continue;
      }
      await t.translate(SENTENCES[0]!, { from, to }); // warm: start the pair's process
      const times: number[] = [];
      for (const s of SENTENCES) {
        const t0 = performance.now();
        await t.translate(s, { from, to });
        times.push(performance.now() - t0);
      }
      rows.push({
        name: `translation ${from}->${to} p50 (${t.id}, ${SENTENCES.length} sentences, warm)`,
        value: round(percentile(times, 50)),
        unit: 'ms',
      });
      rows.push({ name: `translation ${from}->${to} p95`, value: round(percentile(times, 95)), unit: 'ms' });
    }

    const tts = registry.find({ kind: 'tts', language: 'en-US' });
    if (tts) {
      await tts.synthesize('Warming up.', { language: 'en-US' });
      // Live sessions hand TTS one sentence at a time, seconds apart: the encoder started
      // after the previous sentence is warm by then. Back-to-back requests are shown too.
      for (const gapMs of [300, 0]) {
        const times: number[] = [];
        for (const s of SENTENCES.slice(0, 10)) {
          await new Promise((r) => setTimeout(r, gapMs));
          const t0 = performance.now();
          await tts.synthesize(s, { language: 'en-US' });
          times.push(performance.now() - t0);
        }
        const label = gapMs ? `sentences ${gapMs} ms apart` : 'back-to-back';
        const p50 = round(percentile(times, 50));
        rows.push(
          gapMs
            ? atMost(`TTS time to first byte p50 (${tts.id}, en-US sentence, MP3, ${label})`, p50, 'ms', 100)
            : { name: `TTS time to first byte p50 (${label})`, value: p50, unit: 'ms' },
        );
        rows.push({ name: `TTS time to first byte p95 (${label})`, value: round(percentile(times, 95)), unit: 'ms' });
      }
    } else rows.push({ name: 'TTS: no engine serves en-US', value: Number.NaN, unit: 'ms' });

    const lid = registry.find({ kind: 'language-id' });
    if (lid) {
      const samples: Array<[string, string]> = [
        ['Please send me the report before Friday.', 'en'],
        ['Por favor, envíame el informe antes del viernes.', 'es'],
        ['Merci de m’envoyer le rapport avant vendredi.', 'fr'],
        ['Bitte schicken Sie mir den Bericht vor Freitag.', 'de'],
        ['請在星期五之前把報告寄給我。', 'zh-TW'],
        ['请在星期五之前把报告发给我。', 'zh-CN'],
        ['金曜日までに報告書を送ってください。', 'ja'],
        ['금요일까지 보고서를 보내 주세요.', 'ko'],
      ];
      await lid.identify(samples[4]![0]); // warm: OpenCC tables for the Chinese script check
      let right = 0;
      const t0 = performance.now();
      for (const [text, lang] of samples) if ((await lid.identify(text))[0]?.language === lang) right++;
      rows.push({
        name: `text language id accuracy (${lid.id}, ${samples.length} sentences)`,
        value: Math.round((right / samples.length) * 100),
        unit: '%',
      });
      rows.push({ name: 'text language id time per sentence', value: round((performance.now() - t0) / samples.length), unit: 'ms' });
    }

    const summarizer = registry.find({ kind: 'summarizer', language: 'en' });
    if (summarizer) {
      const segments = Array.from({ length: 60 }, (_, i) => SENTENCES[i % SENTENCES.length]!);
      const t0 = performance.now();
      await summarizer.summarize({ segments, language: 'en', plainText: false });
      rows.push({ name: `summary of 60 sentences (${summarizer.id})`, value: round(performance.now() - t0), unit: 'ms' });
    }
  } finally {
    await registry.close();
  }
  return rows;
}
