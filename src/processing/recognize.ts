/**
 * Speech in a finished recording to transcript sentences: the file recognizer of the first
 * transcription language, speakers from the diarizer for `multi_speaker`, the glossary's
 * fuzzy correction and terminology applied to every sentence. The transcript is rebuilt
 * from scratch (one transaction), so running it again after a crash gives the same result.
 * Shared by imports and task retry.
 */
import type { Logger } from 'pino';
import { EngineError } from '../engines/errors.js';
import type { EngineRegistry } from '../engines/registry.js';
import type { PcmAudio, SpeakerTurn } from '../engines/types.js';
import { applyGlossary, type Glossary } from '../glossary/index.js';
import type { SentenceInput, TaskStore } from '../tasks/store.js';

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
}

/** Returns the number of sentences written. */
export async function recognizeIntoTask(deps: RecognizeDeps, taskId: string, audio: PcmAudio, o: RecognizeOptions): Promise<number> {
  const language = o.languages[0];
  if (!language) throw new EngineError('stt_start_failed', 'no transcription language');
  const recognizer = deps.engines.fileRecognizer(language);
  if (!recognizer) throw new EngineError('stt_init_failed', `no file recognizer serves ${language}`);
  let turns: SpeakerTurn[] | null = null;
  if (o.recognitionMode === 'multi_speaker') {
    const diarizer = deps.engines.diarizer();
    if (!diarizer) throw new EngineError('diarization_unavailable', 'no diarizer is configured');
    turns = await diarizer.diarize(audio, { signal: o.signal });
  }
  const transcript = await recognizer.transcribe(audio, { language, signal: o.signal, onProgress: o.onProgress });
  const sentences: SentenceInput[] = [];
  for (const seg of transcript.segments) {
    const raw = seg.text.trim();
    if (!raw) continue;
    const origin = o.glossary ? applyGlossary(raw, language, o.glossary) : raw;
    sentences.push({
      sid: sentences.length,
      origin,
      startMs: seg.startMs,
      endMs: seg.endMs,
      language,
      speakerId: seg.speakerId ?? (turns ? speakerAt(turns, seg.startMs, seg.endMs) : null),
    });
  }
  await deps.tasks.resetTranscript(taskId);
  if (sentences.length) await deps.tasks.appendSentences(taskId, sentences);
  return sentences.length;
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
