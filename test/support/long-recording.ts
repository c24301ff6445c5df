/**
 * A long recording for soak-like tests: jfk.flac and the LibriVox clips, each as 16 kHz s16le
 * mono PCM with a short pause after it, repeated in that order until `seconds` of audio.
 * Built with ffmpeg once per process and length; the clips' words are what a recognizer hears.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/** One cycle: each clip (jfk first) as PCM with its pause after it. */
function clipsWithGaps(): Buffer[] {
  const gap = Buffer.alloc(Math.round(GAP_SECONDS * PCM_BYTES_PER_SECOND));
  return [JFK, ...librivoxClips().map((c) => c.path)].map((p) => Buffer.concat([pcmOf(p), gap]));
}

/** The clips (jfk first) looped to exactly `seconds` of PCM. */
export function longRecording(seconds: number): Buffer {
  const cached = built.get(seconds);
  if (cached) return cached;
  const clips = clipsWithGaps();
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

const webms = new Map<number, Buffer>();

/**
 * The same recording as WebM/Opus (what a browser's MediaRecorder sends, audio_format webm):
 * about 3 KB a second instead of PCM's 32 KB, so a test can send it many times faster than
 * real time within the live audio rate limit (4x real time of PCM bytes, src/realtime/limits.ts).
 * One cycle of the clips is encoded, then repeated by remuxing (ffmpeg -stream_loop, no second
 * encoding): encoding 20 minutes took 50-110 s of a CI run, the cycle takes about 2.
 */
export function longRecordingWebm(seconds: number): Buffer {
  const cached = webms.get(seconds);
  if (cached) return cached;
  const dir = mkdtempSync(join(tmpdir(), 'parley-long-webm-'));
  try {
    const cycle = join(dir, 'cycle.webm');
    const pcmArgs = ['-v', 'error', '-f', 's16le', '-ar', '16000', '-ac', '1', '-i', 'pipe:0'];
    const opus = ['-c:a', 'libopus', '-b:a', '24k', '-vbr', 'off', '-f', 'webm'];
    execFileSync('ffmpeg', [...pcmArgs, ...opus, cycle], { input: Buffer.concat(clipsWithGaps()) });
    const out = execFileSync(
      'ffmpeg',
      ['-v', 'error', '-stream_loop', '-1', '-i', cycle, '-t', String(seconds), '-c', 'copy', '-f', 'webm', 'pipe:1'],
      {
        maxBuffer: 64 << 20,
      },
    );
    webms.set(seconds, out);
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
