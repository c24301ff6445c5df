/**
 * Speech in a finished recording to transcript sentences: the file recognizer of the
 * transcription language (told the glossary's terms; with several languages, one that tells
 * them apart recognizes each window in the one spoken there, see `chooseRecognizer`),
 * speakers from the diarizer for `multi_speaker`, the glossary's fuzzy correction and
 * terminology applied to every sentence, which is then made readable (src/engines/text/readable.ts). The transcript is rebuilt
 * from scratch (one transaction), so running it again after a crash gives the same result.
 * Long recordings are recognized in windows of about ten minutes, cut at the quietest moment
 * near each boundary, and the diarizer reads the file a region at a time, so memory stays flat.
 * Shared by imports and task retry.
 */
import type { Logger } from 'pino';
import { EngineError } from '../engines/errors.js';
import type { EngineRegistry } from '../engines/registry.js';
import { readableText } from '../engines/text/readable.js';
import type { FileRecognizer, FileTranscriptSegment, SpeakerTurn } from '../engines/types.js';
import { applyGlossary, type Glossary, termHints } from '../glossary/index.js';
import type { SentenceInput, TaskStore } from '../tasks/store.js';
import { type PcmFile, quietestCutMs } from './pcm-file.js';

/** Recognition window and the stretch after it searched for a quiet cut. */
export const WINDOW_MS = 10 * 60_000;
const CUT_SEARCH_MS = 15_000;

export interface RecognizeDeps {
  engines: EngineRegistry;
  tasks: TaskStore;
  logger: Logger;
}

export interface RecognizeOptions {
  languages: readonly string[];
  recognitionMode: 'single' | 'multi_speaker';
  glossary?: Glossary | null;
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
  /** Recognition window (default WINDOW_MS; tests shorten it). */
  windowMs?: number;
}

/** Returns the number of sentences written. */
export async function recognizeIntoTask(deps: RecognizeDeps, taskId: string, audio: PcmFile, o: RecognizeOptions): Promise<number> {
  const { recognizer, candidates } = chooseRecognizer(deps, o.languages);
  let turns: SpeakerTurn[] | null = null;
  if (o.recognitionMode === 'multi_speaker') {
    const diarizer = deps.engines.select({ kind: 'diarizer' });
    if (!diarizer.ok) throw new EngineError('diarization_unavailable', diarizer.refusal.message);
    turns = await diarizer.engine
      .diarize(audio, { signal: o.signal }) // read a part at a time
      .catch((err: unknown) => {
        // An abort stays an abort, and an engine's own code (audio_invalid_format ...) is kept.
        if (o.signal?.aborted || err instanceof EngineError) throw err;
        throw new EngineError('diarization_failed', err instanceof Error ? err.message : String(err), { engineId: diarizer.engine.id });
      });
  }
  const segments = await recognizeInWindows(recognizer, audio, candidates, o);
  const sentences: SentenceInput[] = [];
  for (const { language, ...whole } of segments) {
    for (const seg of turns ? splitAtTurns(whole, turns) : [whole]) {
      if (!seg.text.trim()) continue;
      const glossary = o.glossary;
      // Readable text (capitals, glossary terms as written, punctuation from pauses) is what is stored and exported.
      const origin = readableText({ text: seg.text, words: seg.words, isFinal: true }, language, {
        rewrite: glossary ? (t) => applyGlossary(t, language, glossary) : undefined,
      });
      sentences.push({
        sid: sentences.length + 1, // ids start at 1, like live sessions
        origin,
        startMs: seg.startMs,
        endMs: seg.endMs,
        language,
        speakerId: seg.speakerId ?? (turns ? speakerAt(turns, seg.startMs, seg.endMs) : null),
      });
    }
  }
  await deps.tasks.resetTranscript(taskId);
  if (sentences.length) await deps.tasks.appendSentences(taskId, sentences);
  return sentences.length;
}

/**
 * The recognizer, and the languages it chooses among. With several transcription languages the
 * recording may be in any of them (imports refuse multi_language, so one language is spoken at
 * a time): a recognizer that serves them all and tells them apart (`languageDetection`, e.g.
 * Whisper) recognizes each window in the one it hears. Where none can, the first language's
 * recognizer hears it all in the first language, as before, and the log says why.
 */
function chooseRecognizer(deps: RecognizeDeps, languages: readonly string[]): { recognizer: FileRecognizer; candidates: string[] } {
  const language = languages[0];
  if (!language) throw new EngineError('stt_start_failed', 'no transcription language');
  if (languages.length > 1) {
    const detecting = deps.engines.select({ kind: 'file-stt', language, languages });
    if (detecting.ok) return { recognizer: detecting.engine, candidates: [...languages] };
    deps.logger.warn(
      { languages, reason: detecting.refusal.message },
      `no recognizer tells these languages apart: recognized in ${language}`,
    );
  }
  const stt = deps.engines.select({ kind: 'file-stt', language });
  if (!stt.ok) throw new EngineError('stt_init_failed', stt.refusal.message);
  return { recognizer: stt.engine, candidates: [language] };
}

/**
 * Segments of the whole recording, window by window, with times from its start, each with the
 * language its window was recognized in (the first candidate, or the one detected among them).
 */
async function recognizeInWindows(
  recognizer: FileRecognizer,
  audio: PcmFile,
  candidates: string[],
  o: RecognizeOptions,
): Promise<(FileTranscriptSegment & { language: string })[]> {
  const language = candidates[0]!;
  const total = audio.durationMs;
  const windowMs = o.windowMs ?? WINDOW_MS;
  const out: (FileTranscriptSegment & { language: string })[] = [];
  let start = 0;
  while (start < total) {
    o.signal?.throwIfAborted();
    const last = total - start <= windowMs + CUT_SEARCH_MS;
    let pcm = audio.read(start, last ? total - start : windowMs + CUT_SEARCH_MS);
    let length = total - start;
    if (!last) {
      length = quietestCutMs(pcm, windowMs);
      pcm = { sampleRate: pcm.sampleRate, samples: pcm.samples.subarray(0, Math.round((length / 1000) * pcm.sampleRate)) };
    }
    const offset = start;
    const t = await recognizer.transcribe(pcm, {
      language,
      ...(candidates.length > 1 ? { languages: candidates } : {}),
      // Glossary terms are favoured in recognition, for this import only.
      terms: o.glossary ? termHints(language, o.glossary) : undefined,
      signal: o.signal,
      onProgress: (f) => o.onProgress?.((offset + f * length) / total),
    });
    // A detecting recognizer reports the candidate it heard, as the caller wrote it (FileSttOptions.languages).
    const heard = candidates.includes(t.language) ? t.language : language;
    for (const seg of t.segments) {
      out.push({
        ...seg,
        language: heard,
        startMs: seg.startMs + offset,
        endMs: seg.endMs + offset,
        words: seg.words.map((w) => ({ ...w, startMs: w.startMs + offset, endMs: w.endMs + offset })),
      });
    }
    start += Math.max(1, length);
  }
  return out;
}

/**
 * A segment whose words belong to different speakers becomes one segment per run of words of
 * one speaker (a recognizer's utterance can span a change of speaker, especially where voices
 * overlap). Segments without word times stay whole.
 */
export function splitAtTurns(seg: FileTranscriptSegment, turns: SpeakerTurn[]): FileTranscriptSegment[] {
  if (seg.words.length < 2) return [seg];
  const runs: { speaker: string | null; words: FileTranscriptSegment['words'] }[] = [];
  for (const w of seg.words) {
    const speaker = speakerAt(turns, w.startMs, w.endMs);
    const last = runs.at(-1);
    if (last && last.speaker === speaker) last.words.push(w);
    else runs.push({ speaker, words: [w] });
  }
  if (runs.length === 1) return [seg];
  return runs.map((r) => ({
    text: r.words.map((w) => w.text).join(' '),
    startMs: r.words[0]!.startMs,
    endMs: r.words.at(-1)!.endMs,
    words: r.words,
    speakerId: r.speaker ?? undefined,
  }));
}

/** The speaker who talks longest within [start, end); the nearest turn when none overlaps. */
export function speakerAt(turns: SpeakerTurn[], startMs: number, endMs: number): string | null {
  if (turns.length === 0) return null;
  const spoken = new Map<string, number>();
  for (const t of turns) {
    const overlap = Math.min(endMs, t.endMs) - Math.max(startMs, t.startMs);
    if (overlap > 0) spoken.set(t.speakerId, (spoken.get(t.speakerId) ?? 0) + overlap);
  }
  if (spoken.size) return [...spoken].sort((a, b) => b[1] - a[1])[0]![0];
  const mid = (startMs + endMs) / 2;
  const gap = (t: SpeakerTurn) => (mid < t.startMs ? t.startMs - mid : mid > t.endMs ? mid - t.endMs : 0);
  return [...turns].sort((a, b) => gap(a) - gap(b))[0]!.speakerId;
}
