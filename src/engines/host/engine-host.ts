/**
 * The engine host: a Python process (engine-host/, run from the virtual environment that
 * `npm run setup` creates) that loads a Whisper model once and serves it to every session
 * and import of this process over HTTP on loopback (the OpenAI transcription API plus
 * documented extensions: docs/whisper.md), or the Japanese speech model (OpenAI's speech API:
 * docs/tts.md), each in a process of its own. This file starts it, waits for its ready line,
 * restarts it when it dies (backoff 1 s doubling to 30 s) and stops it with the service.
 *
 * Why a process and not a binding: faster-whisper (CTranslate2) is the fastest CPU Whisper
 * runtime on these machines and reads the model packages as they are; Python runtimes are
 * not embeddable in Node, and a separate process also keeps a native crash in the model away
 * from every live session (ARCHITECTURE.md, "Engine host").
 *
 * The child reads nothing from stdin: it exits when stdin reaches end of file, so a Parley
 * process killed with -9 never leaves a model running behind it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Logger } from 'pino';

export interface EngineHostOptions {
  /** The Python of the engine host's virtual environment. */
  python: string;
  /** Folder holding the `parley_engine_host` package (engine-host/ of the project). */
  packageDir: string;
  /** The Whisper model (--model-dir), when this host recognizes speech. */
  modelDir?: string;
  /** The Japanese speech model (--tts-model-dir), when this host speaks. */
  ttsModelDir?: string;
  /** A smaller model for live drafts (the host's --draft-model-dir), or none. */
  draftModelDir?: string;
  threads: number;
  workers: number;
  /** How long the model may take to load before the start counts as failed. */
  startTimeoutMs: number;
  logger: Logger;
}

/** What the host's speech model serves (its ready line's `tts`). */
export interface HostSpeech {
  model: string;
  languages: string[];
  voices: string[];
  sample_rate: number;
}

/** What the host says on its first stdout line when it is ready to serve. */
export interface HostReady {
  event: 'ready';
  port: number;
  /** The Whisper model's name (null: a speech-only host). */
  model: string | null;
  languages: string[];
  /** The draft model's name, or null. */
  draft_model?: string | null;
  /** The speech model, or null. */
  tts?: HostSpeech | null;
}

/** The files a speech model folder must hold (engine-host/parley_engine_host/speech.py). */
const SPEECH_FILES = ['kokoro-v1.0.int8.onnx', 'voices_ja.npz', 'vocab.json'];

const MAX_BACKOFF_MS = 30_000;

export class EngineHost {
  private child: ChildProcess | null = null;
  private current: Promise<HostReady> | null = null;
  private info: HostReady | null = null;
  private closed = false;
  private backoffMs = 1000;
  private restartTimer: NodeJS.Timeout | null = null;
  /** Counts launches: a request remembers it to tell whether the host died under it. */
  private generation = 0;

  constructor(private readonly options: EngineHostOptions) {}

  /** Why the host cannot run here (no virtual environment, no model), or null. */
  static missing(options: Pick<EngineHostOptions, 'python' | 'packageDir' | 'modelDir' | 'ttsModelDir'>): string | null {
    if (!existsSync(options.python)) return `no engine-host environment at ${options.python} (npm run setup creates it)`;
    if (!existsSync(`${options.packageDir}/parley_engine_host`)) return `no engine host package in ${options.packageDir}`;
    if (options.modelDir !== undefined && !existsSync(`${options.modelDir}/model.bin`))
      return `no Whisper model in ${options.modelDir} (npm run setup installs it)`;
    const tts = options.ttsModelDir;
    const lacking = tts === undefined ? undefined : SPEECH_FILES.find((f) => !existsSync(`${tts}/${f}`));
    if (lacking) return `no ${lacking} in ${tts} (npm run setup installs the Japanese voice)`;
    return null;
  }

  /** Starts the host (once) and resolves when it serves. */
  start(): Promise<HostReady> {
    if (this.closed) return Promise.reject(new Error('engine host closed'));
    this.current ??= this.launch();
    return this.current;
  }

  /** Base URL of the OpenAI-compatible API (".../v1") of the running host; waits for a restart in progress. */
  async baseUrl(): Promise<string> {
    const ready = await this.start();
    return `http://127.0.0.1:${ready.port}/v1`;
  }

  /**
   * Runs a request against the host; when the host died under it (killed, crashed), waits for
   * the restart and runs it once more, so a session sees a slower result instead of an error.
   */
  async request<T>(run: () => Promise<T>): Promise<T> {
    await this.start();
    const generation = this.generation;
    try {
      return await run();
    } catch (err) {
      if (this.closed || (this.generation === generation && this.child !== null)) throw err;
      await this.start();
      return run();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }

  private launch(): Promise<HostReady> {
    const o = this.options;
    // The same port again after a restart, so requests in their retry backoff find it.
    const port = this.info?.port ?? 0;
    // Absolute: the host runs in its package folder, where a relative model path means nothing.
    const args = ['-m', 'parley_engine_host', '--port', String(port)];
    if (o.modelDir) args.push('--model-dir', resolve(o.modelDir));
    if (o.ttsModelDir) args.push('--tts-model-dir', resolve(o.ttsModelDir));
    args.push('--threads', String(o.threads), '--workers', String(o.workers));
    if (o.draftModelDir) args.push('--draft-model-dir', resolve(o.draftModelDir));
    this.generation++;
    const child = spawn(o.python, args, {
      cwd: o.packageDir,
      env: { ...process.env, PYTHONUNBUFFERED: '1', PYTHONPATH: o.packageDir, HF_HUB_OFFLINE: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child = child;
    const started = Date.now();
    const stderrTail: string[] = [];
    createInterface({ input: child.stderr! }).on('line', (line) => {
      stderrTail.push(line);
      if (stderrTail.length > 20) stderrTail.shift();
      o.logger.debug({ engineHost: child.pid }, line);
    });
    return new Promise<HostReady>((resolve, reject) => {
      let settled = false;
      const fail = (why: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        child.kill('SIGKILL');
        reject(new Error(`${why}${stderrTail.length ? `: ${stderrTail.slice(-3).join(' | ')}` : ''}`));
      };
      const timer = setTimeout(() => fail(`engine host not ready within ${o.startTimeoutMs} ms`), o.startTimeoutMs);
      createInterface({ input: child.stdout! }).on('line', (line) => {
        if (settled) return;
        let msg: Partial<HostReady>;
        try {
          msg = JSON.parse(line) as Partial<HostReady>;
        } catch {
          return; // a library printing to stdout: not the ready line
        }
        if (msg.event !== 'ready' || typeof msg.port !== 'number') return;
        settled = true;
        clearTimeout(timer);
        this.info = msg as HostReady;
        this.backoffMs = 1000;
        o.logger.info(
          { engineHost: child.pid, port: msg.port, model: msg.model, tts: msg.tts?.model, ms: Date.now() - started },
          'engine host ready',
        );
        resolve(this.info);
      });
      child.on('error', (err) => fail(`engine host did not start: ${err.message}`));
      child.on('exit', (code, signal) => {
        fail(`engine host exited (${signal ?? code}) before it was ready`);
        if (this.child === child) this.onExit(code, signal);
      });
    });
  }

  /** An exit nobody asked for: the next request waits for a restart after the backoff. */
  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.child = null;
    if (this.closed) return;
    const wait = this.backoffMs;
    this.backoffMs = Math.min(MAX_BACKOFF_MS, this.backoffMs * 2);
    this.options.logger.warn({ code, signal, restartInMs: wait }, 'engine host exited; restarting');
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      release();
    }, wait);
    this.current = gate.then(() => (this.closed ? Promise.reject(new Error('engine host closed')) : this.launch()));
    // A failed restart is retried on the next exit event; keep the rejection from being unhandled.
    this.current.catch(() => undefined);
  }
}
