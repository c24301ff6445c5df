/**
 * Live (online) diarization on the classic diarizer's cues, in bounded memory: the audio of
 * the utterance being spoken (at most MAX_BUFFER_MS), and per speaker one VoiceProfile (a
 * Gaussian of its cepstra and a pitch histogram: a few KB, whatever the length of the session).
 *
 * - `current(from, to)`: the speaker of the latest audio, for interim results. The utterance
 *   so far (its last LOOKBACK_MS) is cut at speaker changes (segmentation.ts) and its last
 *   piece matched against the known speakers; nothing is learnt.
 * - `commit(from, to)`: a finished utterance. Its pieces are matched in order, each to the
 *   closest known voice when that voice is "the same" (dissimilarity < 1), else to a new
 *   speaker when the piece is long enough to stand as a person of its own, else to the
 *   closest voice; the matched voices learn the pieces (incremental clustering), and the
 *   audio before `to` is released. The final's speakers may differ from what the interims
 *   said: the final is the correction.
 * - Tentative pieces: a piece unlike every known voice but too short to found a speaker of its
 *   own goes to the closest voice for now, without teaching it. The latest MAX_TENTATIVE such
 *   pieces are judged again after each commit: once a voice is "the same" as one (typically
 *   the voice the same person founded later), it learns the piece, and when that voice is
 *   another than the one said, `corrections()` reports the piece's new speaker (the session
 *   relabels the earlier final and tells every audience).
 *
 * ΔBIC compares log-determinants, so it does not change under one affine transform of all
 * features: the recording-wide cepstral normalization of the file diarizer is not needed here.
 */
import { LiveAudioBuffer } from '../../streaming/live-audio-buffer.js';
import type { LiveDiarization, SpeakerCorrection, SpeakerPiece } from '../../types.js';
import { mfcc } from './features.js';
import { pitchTrack } from './pitch.js';
import { splitAtSpeakerChanges } from './segmentation.js';
import { DEFAULT_TUNING, dissimilarity, type ProfileTuning, VoiceProfile } from './voice-profile.js';

const SAMPLES_PER_MS = 16;
const MS_PER_FRAME = 10;
/** Audio kept for the utterance in progress (a longer utterance is judged on its last part). */
const MAX_BUFFER_MS = 30_000;
/** Interim labelling looks at this much of the utterance so far. */
const LOOKBACK_MS = 4_000;
/** Frames of speech a piece needs to become a new speaker. */
const MIN_NEW_SPEAKER_FRAMES = 120;
/** Frames a piece needs to be judged at all (shorter ones take the neighbouring speaker). */
const MIN_JUDGED_FRAMES = 50;
/** Speakers one session tells apart; beyond, pieces go to the closest known voice. */
const MAX_SPEAKERS = 16;
/** Tentative pieces judged again (older ones keep the speaker they were given). */
const MAX_TENTATIVE = 8;

interface Voice {
  id: string;
  profile: VoiceProfile;
}

interface Tentative {
  startMs: number;
  endMs: number;
  profile: VoiceProfile;
  speakerId: string;
}

export class OnlineDiarizer implements LiveDiarization {
  private readonly audio = new LiveAudioBuffer(MAX_BUFFER_MS);
  private readonly voices: Voice[] = [];
  private tentative: Tentative[] = [];
  private revised: SpeakerCorrection[] = [];

  constructor(private readonly tuning: ProfileTuning = DEFAULT_TUNING) {}

  get speakers(): number {
    return this.voices.length;
  }

  /** Bytes held: the audio buffer and the voices (bounded whatever the session's length). */
  get heldBytes(): number {
    return this.audio.byteLength + (this.voices.length + this.tentative.length) * 4096;
  }

  write(pcm: Int16Array): void {
    this.audio.write(pcm);
  }

  current(fromMs: number, toMs: number): string | null {
    const pieces = this.pieces(Math.max(fromMs, toMs - LOOKBACK_MS), toMs);
    const last = pieces.at(-1);
    if (!last) return this.voices.length === 1 ? (this.voices[0] as Voice).id : null;
    return this.match([...this.voices], pieces).at(-1)?.speakerId ?? null;
  }

  commit(fromMs: number, toMs: number): SpeakerPiece[] {
    const pieces = this.pieces(fromMs, toMs);
    const earlier = this.tentative;
    this.tentative = [];
    const out = this.match(this.voices, pieces, true);
    this.revise(earlier);
    this.audio.release(toMs);
    return out;
  }

  corrections(): SpeakerCorrection[] {
    const out = this.revised;
    this.revised = [];
    return out;
  }

  /** Tentative pieces of earlier commits that a voice now claims: learnt, and reported when relabelled. */
  private revise(earlier: Tentative[]): void {
    const still: Tentative[] = [];
    for (const t of earlier) {
      const { voice, d } = this.closest(this.voices, t.profile);
      if (!voice || d >= 1) {
        still.push(t);
        continue;
      }
      this.learn(this.voices, voice, t.profile);
      if (voice.id !== t.speakerId)
        this.revised.push({
          startMs: Math.round(t.startMs),
          endMs: Math.round(t.endMs),
          speakerId: voice.id,
          previousSpeakerId: t.speakerId,
        });
    }
    this.tentative = [...still, ...this.tentative].slice(-MAX_TENTATIVE);
  }

  private closest(voices: readonly Voice[], profile: VoiceProfile): { voice: Voice | null; d: number } {
    let voice: Voice | null = null;
    let d = Number.POSITIVE_INFINITY;
    for (const v of voices) {
      const dv = dissimilarity(profile, v.profile, this.tuning);
      if (dv < d) {
        d = dv;
        voice = v;
      }
    }
    return { voice, d };
  }

  private learn(voices: Voice[], v: Voice, profile: VoiceProfile): void {
    voices[voices.indexOf(v)] = { id: v.id, profile: v.profile.merge(profile) };
  }

  /** [fromMs, toMs) of the buffer cut at speaker changes, each piece with its voice profile. */
  private pieces(fromMs: number, toMs: number): Array<{ startMs: number; endMs: number; profile: VoiceProfile }> {
    const { samples, startMs } = this.audio.slice(fromMs, toMs);
    if (samples.length < MIN_JUDGED_FRAMES * 160) return [];
    const features = mfcc(samples);
    if (features.frames === 0) return [];
    const f0 = pitchTrack(samples, features.frames);
    return splitAtSpeakerChanges(features, f0, 0, features.frames, this.tuning).map(([from, to]) => ({
      startMs: startMs + from * MS_PER_FRAME,
      endMs: to === features.frames ? startMs + samples.length / SAMPLES_PER_MS : startMs + to * MS_PER_FRAME,
      profile: VoiceProfile.of(features, f0, from, to),
    }));
  }

  /**
   * Speakers of pieces in time order, learnt into `voices` (the caller passes a copy to only
   * look). Pieces too short to judge take the speaker of the previous piece (or the next).
   */
  private match(
    voices: Voice[],
    pieces: ReadonlyArray<{ startMs: number; endMs: number; profile: VoiceProfile }>,
    committing = false,
  ): SpeakerPiece[] {
    const ids: Array<string | null> = pieces.map((p) => {
      if (p.profile.frames < MIN_JUDGED_FRAMES) return null;
      const { voice: best, d: bestD } = this.closest(voices, p.profile);
      const isNew = !best || (bestD >= 1 && p.profile.frames >= MIN_NEW_SPEAKER_FRAMES && voices.length < MAX_SPEAKERS);
      if (isNew) {
        const v = { id: String(voices.length + 1), profile: p.profile };
        voices.push(v);
        return v.id;
      }
      const v = best as Voice;
      // Unlike every voice but too short to stand alone: the closest for now, judged again later.
      if (bestD >= 1 && voices.length < MAX_SPEAKERS) {
        if (committing) this.tentative.push({ startMs: p.startMs, endMs: p.endMs, profile: p.profile, speakerId: v.id });
        return v.id;
      }
      this.learn(voices, v, p.profile);
      return v.id;
    });
    for (let i = 0; i < ids.length; i++) ids[i] ??= ids[i - 1] ?? null;
    for (let i = ids.length - 1; i >= 0; i--) ids[i] ??= ids[i + 1] ?? null;
    const out: SpeakerPiece[] = [];
    pieces.forEach((p, i) => {
      const speakerId = ids[i] ?? voices[0]?.id ?? '1';
      const last = out.at(-1);
      if (last && last.speakerId === speakerId) last.endMs = Math.round(p.endMs);
      else out.push({ startMs: Math.round(p.startMs), endMs: Math.round(p.endMs), speakerId });
    });
    return out;
  }
}
