/** Real recordings for engine tests: ../shared/audio (skip when absent) and Debian's LibriVox clips. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Beside the checkout (../shared/audio), or where PARLEY_TEST_SHARED_AUDIO says (a git worktree elsewhere). */
export const SHARED_AUDIO = process.env.PARLEY_TEST_SHARED_AUDIO ?? join(import.meta.dirname, '..', '..', '..', 'shared', 'audio');
export const JFK = join(SHARED_AUDIO, 'jfk.flac');
export const STEREO = join(SHARED_AUDIO, 'stereo_diarization.wav');
export const JFK_TEXT = 'And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country.';
export const LIBRIVOX_DIR = '/usr/share/pocketsphinx/test/data/librivox';

export function haveSharedAudio(): boolean {
  const ok = existsSync(JFK);
  if (!ok) console.warn(`../shared/audio not found at ${SHARED_AUDIO}: tests on the shared recordings are skipped`);
  return ok;
}

/** LibriVox clips with their reference transcripts (Debian pocketsphinx-testdata). */
export function librivoxClips(): Array<{ path: string; text: string }> {
  const t = join(LIBRIVOX_DIR, 'transcription');
  if (!existsSync(t)) return [];
  return readFileSync(t, 'utf8')
    .trim()
    .split('\n')
    .map((line) => /^<s> (.*) <\/s> \((.*)\)$/.exec(line.trim()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ path: join(LIBRIVOX_DIR, `${m[2]}.wav`), text: m[1]! }));
}

/** Converts a recording with ffmpeg into a temp file of the given extension. */
export function convert(input: string, ext: string, args: string[] = []): string {
  const out = join(mkdtempSync(join(tmpdir(), 'parley-audio-')), `out.${ext}`);
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-i', input, ...args, out]);
  return out;
}
