/**
 * The three servers of bench:peers, each started as its own process tree on the same
 * CTranslate2 model folder, 2 CPU threads for the model (this machine's core count), language
 * fixed to English, offline (no network needed; see docs/benchmarks-peers.md):
 *
 * - Parley: `src/main.ts` with PARLEY_WHISPER=on (it starts and supervises its engine host).
 * - WhisperLiveKit: `whisperlivekit-server --backend faster-whisper --backend-policy
 *   localagreement --model_dir DIR --pcm-input` (SimulStreaming, its default policy, needs
 *   PyTorch Whisper weights, which the same-weights rule and this machine exclude).
 * - WhisperLive: bench/peers/whisperlive_server.py (the documented run_server.py options).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { firstStartKey, freePort, localServerEnv, startServer } from '../../test/support/server.js';
import type { Protocol } from './protocols.js';

const ROOT = join(import.meta.dirname, '..', '..');
/** Where bench/peers/setup.sh put the peers' venvs (PARLEY_PEERS_VENV_DIR, default .venv). */
const VENV_DIR = process.env.PARLEY_PEERS_VENV_DIR ?? join(ROOT, '.venv');
export const VENVS = {
  whisperlivekit: join(VENV_DIR, 'peers-whisperlivekit'),
  whisperlive: join(VENV_DIR, 'peers-whisperlive'),
};
export const THREADS = 2;

export interface RunningSystem {
  name: string;
  protocol: Protocol;
  pid: number;
  /** The WebSocket URL a session connects to. */
  url: string;
  /** A fresh ticket per session (Parley only). */
  ticket?: () => Promise<string>;
  stop(): Promise<void>;
  /** The server's output so far (for errors). */
  output(): string;
}

export interface SystemSpec {
  name: string;
  /** Why it cannot run here, or null. */
  missing(): string | null;
  /**
   * A new server for every level, without a warm-up session: WhisperLive 0.10.0 (faster_whisper,
   * single model) sends nothing to any client that connects after an earlier session ended (seen
   * every time here: such a session gets one 1 s pass, then no message until it ends).
   */
  freshServerPerLevel?: boolean;
  start(modelDir: string, work: string): Promise<RunningSystem>;
}

/** Resolves when `url` answers (any status), rejects after `ms` or when the child exits. */
async function waitForHttp(url: string, child: ChildProcess, output: () => string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}:\n${output().slice(-3000)}`);
    if (
      await fetch(url).then(
        () => true,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`did not answer in ${ms / 1000} s:\n${output().slice(-3000)}`);
}

/** Spawns a Python server, keeping its output; `stop` sends SIGTERM, then SIGKILL after 5 s. */
function spawnServer(python: string, args: string[], env: Record<string, string>) {
  let out = '';
  const child = spawn(python, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-200_000)));
  child.stderr!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-200_000)));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(t);
  };
  return { child, output: () => out, stop };
}

/** Environment that keeps a Python peer offline and on THREADS threads. */
function offlineEnv(home: string): Record<string, string> {
  mkdirSync(home, { recursive: true });
  return {
    HOME: home, // a fresh home: no caches of earlier downloads to lean on
    HF_HUB_OFFLINE: '1',
    TRANSFORMERS_OFFLINE: '1',
    OMP_NUM_THREADS: String(THREADS),
    PYTHONUNBUFFERED: '1',
  };
}

export const parleySystem: SystemSpec = {
  name: 'Parley',
  missing: () => null,
  async start(modelDir, work) {
    const { base, env } = await localServerEnv(join(work, 'parley-data'), {
      PARLEY_STARTER_CREDIT: '1000000',
      PARLEY_WHISPER: 'on',
      PARLEY_WHISPER_MODEL_DIR: modelDir,
    });
    const server = startServer(env, 120_000);
    await server.ready;
    const key = firstStartKey(server);
    const ticket = async () => {
      const r = await fetch(`${base}/api/v1/auth/ticket`, { method: 'POST', headers: { 'x-api-key': key } });
      const body = (await r.json()) as { data: { ticket: string } };
      if (r.status !== 200) throw new Error(`ticket ${r.status}: ${JSON.stringify(body)}`);
      return body.data.ticket;
    };
    return {
      name: 'Parley',
      protocol: 'parley',
      pid: server.child.pid!,
      url: `${base.replace('http', 'ws')}/ws`,
      ticket,
      output: server.output,
      async stop() {
        server.child.kill('SIGTERM');
        await server.exited;
      },
    };
  },
};

export const whisperLiveKitSystem: SystemSpec = {
  name: 'WhisperLiveKit 0.2.26',
  missing: () =>
    existsSync(join(VENVS.whisperlivekit, 'bin', 'whisperlivekit-server'))
      ? null
      : `${VENVS.whisperlivekit} not installed (run bench/peers/setup.sh)`,
  async start(modelDir, work) {
    const port = await freePort();
    const s = spawnServer(
      join(VENVS.whisperlivekit, 'bin', 'whisperlivekit-server'),
      [
        ...['--host', '127.0.0.1', '--port', String(port)],
        ...['--backend', 'faster-whisper', '--backend-policy', 'localagreement', '--model_dir', modelDir],
        ...['--lan', 'en', '--pcm-input', '--log-level', 'WARNING'],
        // No warm-up file: it would fetch jfk.wav from GitHub. The bench warms every system up with a session.
        ...['--warmup-file', ''],
      ],
      offlineEnv(join(work, 'home-whisperlivekit')),
    );
    await waitForHttp(`http://127.0.0.1:${port}/health`, s.child, s.output, 180_000);
    return {
      name: this.name,
      protocol: 'whisperlivekit',
      pid: s.child.pid!,
      url: `ws://127.0.0.1:${port}/asr`,
      output: s.output,
      stop: s.stop,
    };
  },
};

export const whisperLiveSystem: SystemSpec = {
  name: 'WhisperLive 0.10.0',
  freshServerPerLevel: true,
  missing: () =>
    existsSync(join(VENVS.whisperlive, 'bin', 'python')) ? null : `${VENVS.whisperlive} not installed (run bench/peers/setup.sh)`,
  async start(modelDir, work) {
    const port = await freePort();
    // Its own Silero VAD download (wget into ~/.cache/whisper-live) is for the TensorRT backend
    // only; faster_whisper uses faster-whisper's bundled VAD, so the fresh home stays empty.
    const home = join(work, 'home-whisperlive');
    const s = spawnServer(
      join(VENVS.whisperlive, 'bin', 'python'),
      [
        join(ROOT, 'bench', 'peers', 'whisperlive_server.py'),
        ...['--port', String(port), '--model-dir', modelDir, '--threads', String(THREADS), '--max-clients', '16'],
      ],
      offlineEnv(home),
    );
    // A WebSocket-only server: a plain HTTP GET is answered (426 or 400) once it listens.
    await waitForHttp(`http://127.0.0.1:${port}/`, s.child, s.output, 180_000);
    return { name: this.name, protocol: 'whisperlive', pid: s.child.pid!, url: `ws://127.0.0.1:${port}`, output: s.output, stop: s.stop };
  },
};
