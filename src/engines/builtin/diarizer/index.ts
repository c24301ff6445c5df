/**
 * 'builtin/classic-diarizer': speaker diarization without any model download.
 *
 * 1. silero VAD finds the speech regions;
 * 2. per 10 ms frame: MFCC c1..c19 (normalized over the recording's speech) and pitch;
 * 3. inside each region, speaker changes are found by comparing the voice before and after
 *    every point (a VAD region often holds two voices: answers come without a pause, and
 *    voices overlap at turn changes);
 * 4. the pieces are clustered agglomeratively until the closest voices differ (or until
 *    `numSpeakers` clusters are left); pieces too short to judge take the speaker of the
 *    nearest judged piece;
 * 5. each change inside a region is moved to where the two speakers' models put it;
 * 6. speakers are numbered "1", "2", ... in order of first appearance.
 *
 * Limits (see ARCHITECTURE.md): one speaker per moment (overlap goes to one of them); voices
 * with the same pitch are only told apart on turns of several seconds; a speaker whose pitch
 * falls by more than half an octave within a turn can be split in two.
 */
import { pcmSourceOf } from '../../audio/pcm-source.js';
import { EngineError } from '../../errors.js';
import type { EngineFactory } from '../../registry.js';
import type {
  DiarizeOptions,
  Diarizer,
  LiveDiarization,
  PcmAudio,
  PcmSource,
  SpeakerTurn,
  SpeechSegment,
  VoiceActivityDetector,
} from '../../types.js';
import { sileroVadFactory } from '../silero-vad.js';
import { clusterVoices } from './clustering.js';
import { CepstralNormalization, DEFAULT_MFCC, type FeatureMatrix, FRAME_HOP, mfcc } from './features.js';
import type { GaussianStats } from './gaussian.js';
import { OnlineDiarizer } from './online.js';
import { pitchTrack } from './pitch.js';
import { PitchStats, refineChanges, type SpeakerModel, speakerModel } from './resegment.js';
import { splitAtSpeakerChanges } from './segmentation.js';
import { DEFAULT_TUNING, VoiceProfile } from './voice-profile.js';

const SAMPLE_RATE = 16000;
const MS_PER_FRAME = (FRAME_HOP / SAMPLE_RATE) * 1000;
/** Pieces shorter than this (frames) are too short to judge a voice by. */
const MIN_JUDGED_FRAMES = 50;
const VAD_SLICE_SECONDS = 30;
/** Same-speaker turns this close are one turn (speech cut by a VAD slice edge or the VAD's own length limit). */
const JOIN_GAP_MS = 100;
/** Speech (frames) a cluster needs to stand as a speaker of its own. */
const MIN_SPEAKER_FRAMES = 150;

/** A speech region: its times and how many feature frames it has. */
interface Region {
  startMs: number;
  endMs: number;
  frames: number;
}

/** A region's frames while it is being worked on (read again from the source when needed). */
interface RegionFrames {
  features: FeatureMatrix;
  f0: Float64Array;
}

interface Piece {
  region: number;
  /** Frames [from, to) of the region. */
  from: number;
  to: number;
  startMs: number;
  endMs: number;
  profile: VoiceProfile;
  /** log2 pitch of the voiced frames (for the speaker models that place the changes). */
  pitch: PitchStats;
}

/** Times of frames [from, to) of a region; a region's own edges keep the VAD's exact times. */
function timesOf(r: Region, from: number, to: number): { startMs: number; endMs: number } {
  return {
    startMs: from === 0 ? r.startMs : r.startMs + Math.round(from * MS_PER_FRAME),
    endMs: to === r.frames ? r.endMs : r.startMs + Math.round(to * MS_PER_FRAME),
  };
}

const nextTick = () => new Promise<void>((resolve) => setImmediate(resolve));

export class ClassicDiarizer implements Diarizer {
  readonly id = 'builtin/classic-diarizer';
  readonly kind = 'diarizer' as const;
  readonly tier = 'builtin' as const;
  readonly capabilities = { languages: ['*'], diarization: true };

  constructor(private readonly vad: VoiceActivityDetector) {}

  /** Live sessions: incremental clustering on the same voice profiles (online.ts). */
  openLive(): LiveDiarization {
    return new OnlineDiarizer();
  }

  /**
   * In bounded memory: the audio is read one speech region (or VAD slice) at a time, and of
   * each region only its pieces' voice profiles are kept (a few KB each), never its frames.
   * That costs reading and analysing each region again: once for the recording-wide
   * normalization, once for the pieces, and once more for the regions where the voice changes
   * (to place the change). An hour of audio held whole was about 230 MB; now the memory is
   * the longest region's frames plus the profiles and their distances (see ARCHITECTURE.md).
   */
  async diarize(input: PcmAudio | PcmSource, options: DiarizeOptions = {}): Promise<SpeakerTurn[]> {
    const source = pcmSourceOf(input);
    if (source.sampleRate !== SAMPLE_RATE) {
      throw new EngineError('audio_invalid_format', `the diarizer needs ${SAMPLE_RATE} Hz audio, got ${source.sampleRate}`, {
        engineId: this.id,
      });
    }
    const aborted = () => {
      if (options.signal?.aborted) throw options.signal.reason ?? new Error('aborted');
    };
    aborted();
    const speech = await this.speech(source, aborted);
    const read = (r: { startMs: number; endMs: number }) => source.read(r.startMs, r.endMs - r.startMs).samples;

    // Pass 1: the cepstral normalization over all of the recording's speech.
    const normalization = new CepstralNormalization(DEFAULT_MFCC.cepstra);
    const regions: Region[] = [];
    for (const s of speech) {
      aborted();
      const features = mfcc(read(s));
      if (features.frames === 0) continue;
      normalization.add(features);
      regions.push({ startMs: s.startMs, endMs: s.endMs, frames: features.frames });
      await nextTick(); // long recordings: let the event loop breathe between regions
    }
    if (regions.length === 0) return [];
    normalization.finish();
    const framesOf = (r: Region): RegionFrames => {
      const samples = read(r);
      const features = mfcc(samples);
      normalization.apply(features);
      return { features, f0: pitchTrack(samples, features.frames) };
    };

    // Pass 2: each region cut at speaker changes; a voice profile per piece.
    const pieces: Piece[] = [];
    for (const [index, r] of regions.entries()) {
      aborted();
      const { features, f0 } = framesOf(r);
      for (const [from, to] of splitAtSpeakerChanges(features, f0, 0, features.frames, DEFAULT_TUNING)) {
        pieces.push({
          region: index,
          from,
          to,
          ...timesOf(r, from, to),
          profile: VoiceProfile.of(features, f0, from, to),
          pitch: PitchStats.of(f0, from, to),
        });
      }
      await nextTick();
    }
    aborted();
    const speakers = await assignSpeakers(pieces, options.numSpeakers, options.signal);
    const framed = pieces.map((p, i) => ({ region: p.region, from: p.from, to: p.to, speaker: speakers[i]! }));

    // Pass 3: only the regions where the speaker changes, to place each change.
    const models = speakerModels(pieces, speakers);
    for (let k = 0; k < framed.length; ) {
      let end = k + 1;
      while (end < framed.length && framed[end]!.region === framed[k]!.region) end++;
      const own = framed.slice(k, end);
      if (own.some((p) => p.speaker !== own[0]!.speaker)) {
        aborted();
        refineChanges(framesOf(regions[own[0]!.region]!), own, models);
        await nextTick();
      }
      k = end;
    }
    return numberSpeakers(
      framed.map((p) => timesOf(regions[p.region]!, p.from, p.to)),
      framed.map((p) => p.speaker),
    );
  }

  /**
   * VAD over slices of VAD_SLICE_SECONDS: the VAD runs synchronously, and an hour in one call
   * would hold the event loop for seconds. A segment crossing a slice edge becomes two
   * adjacent regions, which costs nothing here (same-speaker neighbours are joined again).
   */
  private async speech(source: PcmSource, aborted: () => void): Promise<SpeechSegment[]> {
    const sliceMs = VAD_SLICE_SECONDS * 1000;
    const out: SpeechSegment[] = [];
    for (let offsetMs = 0; offsetMs < source.durationMs; offsetMs += sliceMs) {
      aborted();
      const part = source.read(offsetMs, Math.min(sliceMs, source.durationMs - offsetMs));
      for (const s of await this.vad.segments(part)) {
        out.push({ startMs: s.startMs + offsetMs, endMs: s.endMs + offsetMs });
      }
      await nextTick();
    }
    return out;
  }
}

/** Each speaker's model, from the statistics its pieces already hold (no pass over frames). */
function speakerModels(pieces: readonly Piece[], speakers: readonly number[]): Map<number, SpeakerModel> {
  const sums = new Map<number, { cepstra: GaussianStats; pitch: PitchStats }>();
  pieces.forEach((p, i) => {
    const s = sums.get(speakers[i]!);
    sums.set(
      speakers[i]!,
      s ? { cepstra: s.cepstra.plus(p.profile.cepstra), pitch: s.pitch.plus(p.pitch) } : { cepstra: p.profile.cepstra, pitch: p.pitch },
    );
  });
  return new Map([...sums].map(([speaker, s]) => [speaker, speakerModel(s.cepstra, s.pitch)]));
}

/**
 * Cluster per piece. Pieces long enough to judge are clustered; a cluster with less than
 * MIN_SPEAKER_FRAMES of speech in all is not trusted as a person of its own (one odd second —
 * a laugh, a shouted word, a pitch-tracking slip — would otherwise become "speaker 3") unless
 * the caller asked for that many speakers; its pieces, and the pieces too short to judge,
 * take the speaker of the nearest trusted piece in time.
 */
async function assignSpeakers(pieces: readonly Piece[], numSpeakers?: number, signal?: AbortSignal): Promise<number[]> {
  let judged = pieces.flatMap((p, i) => (p.profile.frames >= MIN_JUDGED_FRAMES ? [i] : []));
  if (judged.length === 0) judged = pieces.map((_, i) => i);
  const clusters = await clusterVoices(
    judged.map((i) => pieces[i]!.profile),
    DEFAULT_TUNING,
    numSpeakers,
    signal,
  );
  const size = new Map<number, number>();
  for (const [k, p] of judged.entries()) size.set(clusters[k]!, (size.get(clusters[k]!) ?? 0) + pieces[p]!.profile.frames);
  const largest = Math.max(...size.values());
  const trusted = (c: number) => numSpeakers !== undefined || size.get(c)! >= Math.min(MIN_SPEAKER_FRAMES, largest);
  const out = new Array<number>(pieces.length);
  const anchors: number[] = [];
  judged.forEach((p, k) => {
    if (!trusted(clusters[k]!)) return;
    out[p] = clusters[k]!;
    anchors.push(p);
  });
  const centre = (p: Piece) => (p.startMs + p.endMs) / 2;
  pieces.forEach((p, i) => {
    if (out[i] !== undefined) return;
    let nearest = anchors[0]!;
    for (const j of anchors) if (Math.abs(centre(pieces[j]!) - centre(p)) < Math.abs(centre(pieces[nearest]!) - centre(p))) nearest = j;
    out[i] = out[nearest]!;
  });
  return out;
}

/** Turns in time order, touching pieces of one speaker joined, ids "1", "2", ... by first appearance. */
function numberSpeakers(pieces: ReadonlyArray<{ startMs: number; endMs: number }>, clusters: readonly number[]): SpeakerTurn[] {
  const ids = new Map<number, string>();
  const turns: SpeakerTurn[] = [];
  pieces.forEach((p, i) => {
    const c = clusters[i]!;
    if (!ids.has(c)) ids.set(c, String(ids.size + 1));
    const speakerId = ids.get(c)!;
    const last = turns[turns.length - 1];
    if (last && last.speakerId === speakerId && p.startMs - last.endMs <= JOIN_GAP_MS) last.endMs = p.endMs;
    else turns.push({ startMs: p.startMs, endMs: p.endMs, speakerId });
  });
  return turns;
}

export const classicDiarizerFactory: EngineFactory = {
  id: 'builtin/classic-diarizer',
  kind: 'diarizer',
  tier: 'builtin',
  summary: 'Classic speaker diarization: silero VAD, MFCC + pitch, change detection, agglomerative clustering (no model download)',
  async create(ctx) {
    const vad = await sileroVadFactory.create(ctx);
    if ('unavailable' in vad) return { unavailable: `needs the silero VAD: ${vad.unavailable}` };
    return new ClassicDiarizer(vad as VoiceActivityDetector);
  },
};
