/**
 * 'neural/sherpa-diarization': pyannote segmentation + a speaker-embedding model, clustered
 * by sherpa-onnx's OfflineSpeakerDiarization. With a known speaker count the clustering is
 * told it; otherwise a cosine-distance threshold decides (PARLEY_SHERPA_DIARIZATION_THRESHOLD).
 * sherpa-onnx reports overlapped speech as overlapping turns; transcripts give each word one
 * speaker, so overlaps are flattened: where two turns overlap, the one that began later (the
 * voice that came in) holds the moment, and the longer turn resumes after it. Speaker ids are
 * renumbered "1", "2", ... in order of first appearance, as the Diarizer interface promises.
 */
import type { EngineFactory } from '../registry.js';
import type { Diarizer, SpeakerTurn } from '../types.js';
import { type Embed, EmbeddingLiveDiarizer } from './live-embedding.js';
import { loadSherpa, modelFolder, pickFile, type SherpaModule } from './sherpa-common.js';

type RawTurn = { start: number; end: number; speaker: number };

/** One speaker per moment: at each moment, of the turns covering it, the one that began last. */
export function flattenOverlaps(raw: RawTurn[]): RawTurn[] {
  const edges = [...new Set(raw.flatMap((t) => [t.start, t.end]))].sort((a, b) => a - b);
  const out: RawTurn[] = [];
  for (let i = 0; i + 1 < edges.length; i++) {
    const [from, to] = [edges[i]!, edges[i + 1]!];
    const covering = raw.filter((t) => t.start <= from && t.end >= to);
    if (!covering.length) continue;
    const who = covering.reduce((a, b) => (b.start > a.start ? b : a)).speaker;
    const last = out.at(-1);
    if (last && last.speaker === who && last.end === from) last.end = to;
    else out.push({ start: from, end: to, speaker: who });
  }
  return out;
}

export function numberSpeakers(raw: Array<{ start: number; end: number; speaker: number }>): SpeakerTurn[] {
  const ids = new Map<number, string>();
  return [...raw]
    .sort((a, b) => a.start - b.start)
    .map((s) => {
      if (!ids.has(s.speaker)) ids.set(s.speaker, String(ids.size + 1));
      return { startMs: Math.round(s.start * 1000), endMs: Math.round(s.end * 1000), speakerId: ids.get(s.speaker) ?? '1' };
    });
}

export function createSherpaDiarizer(
  sherpa: SherpaModule,
  segmentation: string,
  embedding: string,
  threads: number,
  threshold: number,
): Diarizer {
  const sd = new sherpa.OfflineSpeakerDiarization({
    segmentation: { pyannote: { model: segmentation }, numThreads: threads, debug: 0 },
    embedding: { model: embedding, numThreads: threads, debug: 0 },
    clustering: { numClusters: -1, threshold },
    minDurationOn: 0.3,
    minDurationOff: 0.5,
  });
  let busy: Promise<unknown> = Promise.resolve(); // setConfig + process must not interleave
  // One thread: live pieces are short (a 1 s window takes ~10 ms), and in bench:diarizer two
  // threads spent 3-4x the CPU for the same labels (the thread pool spinning between calls).
  const embed = sharedEmbedder(sherpa, embedding, 1);
  return {
    id: 'neural/sherpa-diarization',
    kind: 'diarizer',
    tier: 'neural',
    capabilities: { languages: ['*'], diarization: true },
    diarize(audio, options = {}) {
      const run = busy.then(() => {
        if (options.signal?.aborted) throw options.signal.reason;
        sd.setConfig({ clustering: { numClusters: options.numSpeakers ?? -1, threshold } });
        // sherpa-onnx takes the whole recording in one array: this engine is not bounded in memory.
        const whole = 'read' in audio ? audio.read(0, audio.durationMs + 1) : audio;
        return numberSpeakers(flattenOverlaps(sd.process(whole.samples) as RawTurn[]));
      });
      busy = run.catch(() => {});
      return run;
    },
    /** Live sessions: the same embedding model, one extractor for every session (live-embedding.ts). */
    openLive() {
      return new EmbeddingLiveDiarizer(embed.load());
    },
  };
}

/**
 * sherpa-onnx's SpeakerEmbeddingExtractor on the diarizer's embedding model, loaded when the
 * first live session opens (about 2 s; a failure there is the session's start failure, not a
 * later labelling one) and shared by all of them: each call has its own stream, and calls run
 * one at a time on the event loop. Imports never load it.
 */
function sharedEmbedder(sherpa: SherpaModule, model: string, threads: number): { load(): Embed } {
  // biome-ignore lint/suspicious/noExplicitAny: sherpa-onnx-node ships no types
  let extractor: any = null;
  const embed: Embed = (samples) => {
    const stream = extractor.createStream();
    stream.acceptWaveform({ sampleRate: 16000, samples });
    stream.inputFinished();
    if (!extractor.isReady(stream)) return null;
    return extractor.compute(stream, false) as Float32Array;
  };
  return {
    load() {
      extractor ??= new sherpa.SpeakerEmbeddingExtractor({ model, numThreads: threads, debug: 0 });
      return embed;
    },
  };
}

export const sherpaDiarizationFactory: EngineFactory = {
  id: 'neural/sherpa-diarization',
  kind: 'diarizer',
  tier: 'neural',
  summary: 'Speaker diarization: pyannote segmentation + speaker embeddings (sherpa-onnx, PARLEY_SHERPA_DIARIZATION_MODELS).',
  async create(ctx) {
    const [segName = '', embName = ''] = ctx.config.engines.sherpaDiarizationModels.split(',').map((s) => s.trim());
    const segDir = modelFolder(ctx.modelsDir, segName, ['speaker-segmentation']);
    if (typeof segDir !== 'string') return segDir;
    const embDir = modelFolder(ctx.modelsDir, embName, ['speaker-embedding']);
    if (typeof embDir !== 'string') return embDir;
    const seg = pickFile(segDir, /\.onnx$/);
    const emb = pickFile(embDir, /\.onnx$/);
    if (!seg || !emb) return { unavailable: `no .onnx file in ${seg ? embDir : segDir}; re-run models pull` };
    return createSherpaDiarizer(loadSherpa(), seg, emb, ctx.config.engines.neuralThreads, ctx.config.engines.sherpaDiarizationThreshold);
  },
};
