/**
 * A file decoded to raw 16 kHz mono s16le PCM on disk, with the bytes counted as ffmpeg writes
 * them: the output goes through this process with back-pressure (async writes, a few pipe
 * buffers in memory at most), and past `maxBytes` ffmpeg is killed, the partial file removed
 * and `OutputLimitError` thrown. A file whose header makes it decode to days of audio costs at
 * most the limit in disk and time, never the header's claim.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, rmSync } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { EngineError } from '../errors.js';
import { SAMPLE_RATE } from './ffmpeg.js';
import { OutputLimitError } from './port.js';

export async function decodeToFileBounded(
  input: string,
  outPath: string,
  o: { ffmpegPath: string; maxBytes?: number; timeoutMs?: number; signal?: AbortSignal },
): Promise<{ bytes: number }> {
  const limit = o.maxBytes ?? Number.POSITIVE_INFINITY;
  const child = spawn(
    o.ffmpegPath,
    [
      '-hide_banner',
      '-nostdin',
      '-loglevel',
      'error',
      '-i',
      input,
      '-vn',
      '-ac',
      '1',
      '-ar',
      String(SAMPLE_RATE),
      '-f',
      's16le',
      '-acodec',
      'pcm_s16le',
      'pipe:1',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    if (stderr.length < 4000) stderr += d.toString();
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', (e) => reject(new EngineError('audio_process_failed', `ffmpeg could not run: ${e.message}`, { cause: e })));
    child.once('close', (code) => resolve(code));
  });
  exited.catch(() => {});
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      if (bytes > limit) done(new OutputLimitError(bytes, limit));
      else done(null, chunk);
    },
  });
  const controller = new AbortController();
  const stop = (reason: Error) => controller.abort(reason);
  const timer = setTimeout(() => stop(new EngineError('audio_process_failed', 'ffmpeg took too long')), o.timeoutMs ?? 60 * 60_000);
  const onAbort = () => stop(new EngineError('audio_process_failed', 'aborted'));
  o.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    await pipeline(child.stdout, counter, createWriteStream(outPath), { signal: controller.signal }).catch((err: unknown) => {
      throw controller.signal.aborted ? controller.signal.reason : err;
    });
    const code = await exited;
    if (code !== 0) {
      throw new EngineError('audio_decode_failed', `ffmpeg failed: ${stderr.trim().split('\n').slice(-2).join(' ') || `exit ${code}`}`);
    }
    return { bytes };
  } catch (err) {
    rmSync(outPath, { force: true });
    throw err;
  } finally {
    clearTimeout(timer);
    o.signal?.removeEventListener('abort', onAbort);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}
