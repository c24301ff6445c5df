/**
 * Streamed synthesis for every TTS engine: the engine's own `synthesizeStream` when it has
 * one (eSpeak: each sentence encoded as soon as it is rendered), otherwise one `synthesize`
 * call per sentence. Either way the caller gets self-contained MP3 sentences in order, with
 * word boundaries on the whole text's timeline, and can send the first one while the rest
 * is still being made.
 */
import type { SynthesisChunk, SynthesizeOptions, Synthesizer, WordBoundary } from './types.js';

const SENTENCE_END = /[.!?。！？；;…]+["'”’」)）]*\s+|[。！？]+|\n+/gu;

/** Splits text after sentence ends; each piece keeps its trailing spaces and its offset. */
export function sentencePieces(text: string): Array<{ text: string; offset: number }> {
  const pieces: Array<{ text: string; offset: number }> = [];
  let start = 0;
  for (const m of text.matchAll(SENTENCE_END)) {
    const end = m.index + m[0].length;
    if (text.slice(start, end).trim()) {
      pieces.push({ text: text.slice(start, end), offset: start });
      start = end;
    }
  }
  if (text.slice(start).trim()) pieces.push({ text: text.slice(start), offset: start });
  else if (pieces.length && start < text.length) pieces[pieces.length - 1]!.text += text.slice(start);
  return pieces;
}

/** Moves boundaries of a piece onto the whole text: audio by `startMs`, characters by `offset`. */
export function placeBoundaries(boundaries: WordBoundary[], startMs: number, offset: number): WordBoundary[] {
  return boundaries.map((b) => ({ ...b, offset_ms: b.offset_ms + startMs, text_offset: b.text_offset + offset }));
}

/** One sentence rendered to 16-bit PCM, its duration and its boundaries (relative to the sentence). */
export interface RenderedPiece {
  pcm: Buffer;
  durationMs: number;
  boundaries: WordBoundary[];
}

/**
 * Sentence by sentence for engines that render PCM and encode it apart (the neural voices): the
 * next sentence is rendered while the previous one is encoded and handed to the caller, so the
 * first sentence goes out as soon as it is rendered and encoded.
 */
export async function* pipelinedStream(
  text: string,
  render: (piece: string) => Promise<RenderedPiece>,
  encode: (pcm: Buffer) => Promise<Buffer>,
): AsyncGenerator<SynthesisChunk> {
  let startMs = 0;
  let previous: Promise<SynthesisChunk> | null = null;
  let rendering: Promise<RenderedPiece> | null = null;
  try {
    for (const piece of sentencePieces(text)) {
      rendering = render(piece.text);
      rendering.catch(() => {}); // observed below; a failure while the previous one is handed out must not go unhandled
      if (previous) yield await previous;
      const r = await rendering;
      const at = startMs;
      previous = encode(r.pcm).then((mp3) => ({
        text: piece.text,
        textOffset: piece.offset,
        mp3,
        startMs: at,
        durationMs: r.durationMs,
        boundaries: placeBoundaries(r.boundaries, at, piece.offset),
      }));
      previous.catch(() => {});
      startMs += r.durationMs;
    }
    if (previous) yield await previous;
  } finally {
    previous?.catch(() => {});
    rendering?.catch(() => {});
  }
}

export async function* synthesisStream(tts: Synthesizer, text: string, options: SynthesizeOptions): AsyncGenerator<SynthesisChunk> {
  if (tts.synthesizeStream) {
    yield* tts.synthesizeStream(text, options);
    return;
  }
  let startMs = 0;
  for (const piece of sentencePieces(text)) {
    options.signal?.throwIfAborted();
    const r = await tts.synthesize(piece.text, options);
    yield {
      text: piece.text,
      textOffset: piece.offset,
      mp3: r.mp3,
      startMs,
      durationMs: r.durationMs,
      boundaries: placeBoundaries(r.boundaries, startMs, piece.offset),
    };
    startMs += r.durationMs;
  }
}
