/**
 * A long recording for soak-like tests: jfk.flac and the LibriVox clips, each as 16 kHz s16le
 * mono PCM with a short pause after it, repeated in that order until `seconds` of audio.
 * Built with ffmpeg once per process and length; the clips' words are what a recognizer hears.
 */
import { execFileSync } from 'node:child_process';
import { JFK, librivoxClips } from './audio.js';

/** Bytes of one second of 16 kHz s16le mono. */
export const PCM_BYTES_PER_SECOND = 32_000;
/** Silence between clips, so each ends as a sentence (a speaker's pause). */
const GAP_SECONDS = 0.8;

const built = new Map<number, Buffer>();

function pcmOf(path: string): Buffer {
  return execFileSync('ffmpeg', ['-v', 'error', '-i', path, '-f', 's16le', '-ar', '16000', '-ac', '1', 'pipe:1'], {
    maxBuffer: 64 << 20,
  });
}

/** The clips (jfk first) looped to exactly `seconds` of PCM. */
export function longRecording(seconds: number): Buffer {
  const cached = built.get(seconds);
  if (cached) return cached;
  const gap = Buffer.alloc(Math.round(GAP_SECONDS * PCM_BYTES_PER_SECOND));
  const clips = [JFK, ...librivoxClips().map((c) => c.path)].map((p) => Buffer.concat([pcmOf(p), gap]));
  const total = seconds * PCM_BYTES_PER_SECOND;
  const parts: Buffer[] = [];
  for (let n = 0, i = 0; n < total; i++) {
    const clip = clips[i % clips.length]!;
    parts.push(clip);
    n += clip.length;
  }
  const out = Buffer.concat(parts).subarray(0, total);
  built.set(seconds, out);
  return out;
}
