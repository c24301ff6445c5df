/**
 * bench:live-from-file: live captions from a file recognizer (streaming/over-file.ts). A
 * local OpenAI-compatible transcription server (test/support/openai-server.ts) answers from
 * the built-in PocketSphinx file recognizer, as a Whisper server would; N sessions stream
 * jfk.flac at real-time pace in 100 ms chunks through the remote recognizer's streaming face.
 * It reports the interim latency (arrival of an interim minus the moment the audio it covers,
 * up to its `endMs`, had been written), the final latency (arrival of a final minus the
 * moment its utterance's end had been written), how many passes the server answered, and
 * the most passes of one session it ever saw at once (must be 1 per session). Server and
 * clients share this machine's cores: note the load average.
 *
 * Usage: npm run -s bench:live-from-file [-- --sessions 1 --interval 1000]
 */
import { cpus, loadavg } from 'node:os';
import { decodeToPcm } from '../src/engines/audio/ffmpeg.js';
import { pocketsphinxFileFactory } from '../src/engines/builtin/pocketsphinx/index.js';
import { sileroVadFactory } from '../src/engines/builtin/silero-vad.js';
import { createOpenAiTranscription } from '../src/engines/remote/openai-transcription.js';
import { StreamingOverFile } from '../src/engines/streaming/over-file.js';
import type { FileRecognizer, VoiceActivityDetector } from '../src/engines/types.js';
import { JFK } from '../test/support/audio.js';
import { startOpenAiServer } from '../test/support/openai-server.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const SESSIONS = arg('sessions', 1);
const INTERVAL_MS = arg('interval', 1000);
const CHUNK = 1600; // 100 ms

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

async function main() {
  const ctx = { config: { engines: { pocketsphinxDecoders: Math.max(2, SESSIONS), pocketsphinxStreamLookahead: 0 } } } as never;
  const server = await startOpenAiServer();
  server.recognizer = (await pocketsphinxFileFactory.create(ctx)) as FileRecognizer;
  const vad = (await sileroVadFactory.create(ctx)) as VoiceActivityDetector;
  const remote = createOpenAiTranscription({ baseUrl: server.url, model: 'whisper-1', timeoutMs: 60_000, retries: 0 });
  // Each pass timed as the client sees it (upload, recognition, answer): what bounds the interim latency.
  const passMs: number[] = [];
  const timed: FileRecognizer = {
    ...remote,
    async transcribe(audio, options) {
      const t = performance.now();
      try {
        return await remote.transcribe(audio, options);
      } finally {
        passMs.push(performance.now() - t);
      }
    },
  };
  const live = new StreamingOverFile(timed, vad, { intervalMs: INTERVAL_MS, maxUtteranceMs: 15_000 });
  const jfk = await decodeToPcm(JFK, { ffmpegPath: 'ffmpeg' });
  const pcm = Int16Array.from(jfk.samples, (s) => Math.max(-32768, Math.min(32767, Math.round(s * 32767))));
  console.log(
    `bench:live-from-file on ${cpus().length} cores, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; ${SESSIONS} session(s), interval ${INTERVAL_MS} ms, PocketSphinx behind the local OpenAI-compatible server`,
  );

  const interim: number[] = [];
  const final: number[] = [];
  let errors = 0;
  const session = async () => {
    const writtenAt: number[] = []; // writtenAt[i]: when audio up to (i + 1) * 100 ms had been written
    const at = (ms: number) => writtenAt[Math.max(0, Math.ceil(ms / 100) - 1)];
    const s = await live.open({
      language: 'en-US',
      interimResults: true,
      onResult: (r) => {
        const t = at(r.endMs);
        if (t !== undefined) (r.isFinal ? final : interim).push(performance.now() - t);
      },
      onError: () => errors++,
    });
    const t0 = performance.now();
    for (let i = 0, k = 0; i < pcm.length; i += CHUNK, k++) {
      const wait = t0 + k * 100 - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      s.write(pcm.subarray(i, i + CHUNK));
      writtenAt.push(performance.now());
    }
    await s.end();
  };
  const before = server.requests.length;
  await Promise.all(Array.from({ length: SESSIONS }, session));
  interim.sort((a, b) => a - b);
  final.sort((a, b) => a - b);
  const fmt = (xs: number[]) =>
    `p50 ${percentile(xs, 50).toFixed(0)} ms, p95 ${percentile(xs, 95).toFixed(0)} ms, max ${(xs.at(-1) ?? Number.NaN).toFixed(0)} ms over ${xs.length}`;
  console.log(`interim latency ${fmt(interim)}`);
  console.log(`final latency   ${fmt(final)}`);
  passMs.sort((a, b) => a - b);
  console.log(`pass duration   ${fmt(passMs)} (an utterance needs two passes before its first interim)`);
  console.log(
    `${server.requests.length - before} passes answered, at most ${server.maxTranscriptionsInFlight} at once for ${SESSIONS} session(s); ${errors} errors; load ${loadavg()[0]!.toFixed(2)}`,
  );
  await server.close();
  process.exit(0);
}

void main();
