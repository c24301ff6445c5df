/**
 * `AudioTools` on ffmpeg (PARLEY_FFMPEG): the one place that knows the binary's path. The
 * composition root builds it once; features get the interface (port.ts).
 */
import { spawn } from 'node:child_process';
import { PassThrough, type Readable } from 'node:stream';
import { EngineError } from '../errors.js';
import { decodeToFileBounded } from './decode-to-file.js';
import { channelCount, decodeToPcm, encodeFile, encodePcmToMp3, measureDurationMs, streamInfo } from './ffmpeg.js';
import type { AudioTools } from './port.js';
import { decodeStream, WebmStreamDecoder } from './stream.js';

export function createFfmpegAudio(ffmpegPath: string): AudioTools {
  const base = { ffmpegPath };
  const inspect: AudioTools['inspect'] = async (path, o = {}) => {
    const info = await streamInfo(path, { ...base, ...o });
    if (!info) throw new EngineError('audio_invalid_format', 'the input has no audio stream');
    return info;
  };
  return {
    inspect,
    async probe(path, o = {}) {
      // The header first: a file without an audio stream is not decoded at all.
      const info = await inspect(path, o);
      const { durationMs, over } = await measureDurationMs(path, { ...base, ...o, maxMs: o.maxDurationMs });
      return { durationMs, over, channels: info.channels, sampleRate: info.sampleRate, codec: info.codec };
    },
    decode: (input, o = {}) => decodeToPcm(input, { ...base, ...o }),
    async splitChannels(path, o = {}) {
      const n = await channelCount(path, { ...base, ...o });
      const out = [];
      for (let channel = 0; channel < n; channel++) out.push(await decodeToPcm(path, { ...base, ...o, channel }));
      return out;
    },
    decodeToFile: (input, outPath, o = {}) => decodeToFileBounded(input, outPath, { ...base, ...o }),
    decodeStream: (input, o = {}) => decodeStream(input, { ...base, ...o }),
    liveDecoder: (o) => new WebmStreamDecoder({ ...base, ...o }),
    encodeFile: (input, outPath, format, o = {}) => encodeFile(input, outPath, format, { ...base, ...o }),
    encodeMp3: (pcm, o = {}) => encodePcmToMp3(pcm, { ...base, ...o }),
    mp3Stream: (path, o) => mp3Stream(ffmpegPath, path, o),
  };
}

/**
 * ffmpeg's MP3 output piped at the reader's pace (pipe back-pressure), where the runner in
 * ffmpeg.ts collects or pushes output at once. A reader that goes away stops the encoding.
 */
function mp3Stream(
  ffmpegPath: string,
  input: string,
  o: { bitrate: string; onError: (err: Error) => void; onClose: () => void },
): Readable {
  const ff = spawn(
    ffmpegPath,
    ['-hide_banner', '-loglevel', 'error', '-nostdin', '-i', input, '-vn', '-c:a', 'libmp3lame', '-b:a', o.bitrate, '-f', 'mp3', 'pipe:1'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const out = new PassThrough();
  let stderr = '';
  ff.stderr.on('data', (d: Buffer) => {
    if (stderr.length < 4000) stderr += d.toString();
  });
  ff.stdout.pipe(out, { end: false });
  ff.on('error', (err) => {
    o.onError(err);
    out.destroy(err);
    o.onClose();
  });
  ff.on('close', (code) => {
    o.onClose();
    if (code === 0) {
      ff.stdout.once('end', () => out.end());
      if (ff.stdout.readableEnded) out.end();
    } else {
      const err = new Error(`ffmpeg exited with ${code}: ${stderr.trim()}`);
      o.onError(err);
      out.destroy(err);
    }
  });
  out.on('close', () => {
    if (ff.exitCode === null) ff.kill('SIGKILL');
  });
  return out;
}
