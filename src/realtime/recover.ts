/**
 * Recordings of a process that died (kill -9, power loss) are not lost. Each realtime process
 * keeps its recordings' audio under its own folder `tmp/realtime/<instance>/` (`<task>.wav` plus
 * a `<task>.json` sidecar with the usage row) and touches `alive` there every few seconds. At
 * start, a folder whose `alive` is older than the recovery threshold belongs to a dead process:
 * each of its recordings still in `recording`, or in `uploading` / `processing` (the process died
 * while finalizing it), gets its usage row ended, its audio stored as
 * M4A, and is moved to `processing` and handed to the task reprocessor (the durable job that
 * rebuilds a transcript from stored audio: recognition, translations and the summary the session
 * asked for, kept in the sidecar), which completes it.
 * A recording with no audio fails with `no_audio` and is refunded.
 */
import { createReadStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { AudioTools } from '../engines/audio/port.js';
import type { SummaryRequest } from '../processing/summarize.js';
import type { BlobStore } from '../storage/types.js';
import type { TaskReprocessor, TaskService } from '../tasks/service.js';
import type { TaskRecord } from '../tasks/store.js';
import { wavHeader } from './wav.js';

export const ALIVE_FILE = 'alive';
const HEARTBEAT_MS = 5_000;

/** What the sidecar of a running recording says. */
export interface RecordingSidecar {
  task_id: string;
  usage_id: string;
  /** The summary the session asked for (start or set_summary); the reprocessing job makes it. */
  summary?: SummaryRequest | null;
}

export interface RecoveryDeps {
  /** The task service: recovered tasks move and end through it (its outcomes write the webhooks). */
  tasks: Pick<TaskService, 'getTask' | 'advance' | 'setAudio' | 'complete' | 'fail'>;
  /** Hands the recovered audio to the reprocessing job (recognition, translations); none: completed as is. */
  reprocessor: TaskReprocessor | undefined;
  blobs: BlobStore;
  audio: Pick<AudioTools, 'encodeFile'>;
  endUsage(usageId: string): Promise<void>;
  refundNoAudio(usageId: string): Promise<void>;
  logger: Logger;
  /**
   * The recording's live_recordings row (src/realtime/live): `claim` takes it for this
   * recovery (null: no row; false: another process resumed or finished it, the files here are
   * dropped), `done` ends it once recovered.
   */
  live?: { claim(taskId: string): Promise<boolean | null>; done(taskId: string): Promise<void> };
}

/** Creates this process's folder and keeps its heartbeat fresh; returns the stop function. */
export function startHeartbeat(instanceDir: string): () => void {
  mkdirSync(instanceDir, { recursive: true });
  const alive = join(instanceDir, ALIVE_FILE);
  writeFileSync(alive, String(process.pid));
  const timer = setInterval(() => {
    try {
      const now = new Date();
      utimesSync(alive, now, now);
    } catch {
      /* the folder was removed at shutdown */
    }
  }, HEARTBEAT_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    // Every recording was finalized (shutdown waits for that): nothing is left to recover.
    const left = existsSync(instanceDir) ? readdirSync(instanceDir).filter((f) => f !== ALIVE_FILE) : [];
    if (left.length === 0) rmSync(instanceDir, { recursive: true, force: true });
  };
}

/** Recovers the recordings of dead processes' folders under `baseDir` (never `ownDir`). */
export async function recoverOrphans(d: RecoveryDeps, baseDir: string, ownDir: string, staleMs: number): Promise<number> {
  if (!existsSync(baseDir)) return 0;
  let recovered = 0;
  for (const name of readdirSync(baseDir)) {
    const dir = join(baseDir, name);
    if (dir === ownDir || !statSync(dir).isDirectory()) continue;
    const alive = join(dir, ALIVE_FILE);
    const beat = existsSync(alive) ? statSync(alive).mtimeMs : statSync(dir).mtimeMs;
    if (Date.now() - beat < staleMs) continue; // another live process
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
      try {
        const sidecar = JSON.parse(readFileSync(join(dir, file), 'utf8')) as RecordingSidecar;
        if (await recoverOne(d, dir, sidecar)) recovered++;
      } catch (err) {
        d.logger.error({ err, file: join(dir, file) }, 'recording recovery failed; files kept for the next start');
        continue;
      }
      rmSync(join(dir, file), { force: true });
      rmSync(join(dir, file.replace(/\.json$/, '.wav')), { force: true });
    }
    if (readdirSync(dir).every((f) => f === ALIVE_FILE)) rmSync(dir, { recursive: true, force: true });
  }
  return recovered;
}

/** A live task the dead process had not finished: still recording, or killed while finalizing it. */
const UNFINISHED = new Set(['recording', 'uploading', 'processing']);

async function recoverOne(d: RecoveryDeps, dir: string, s: RecordingSidecar): Promise<boolean> {
  const task = await d.tasks.getTask(s.task_id);
  // Finalized, force-failed or deleted meanwhile: nothing to do (a force-fail keeps its own outcome).
  if (!task || !UNFINISHED.has(task.processingStatus)) return false;
  if ((await d.live?.claim(s.task_id)) === false) return false;
  const recovered = await recoverClaimed(d, dir, s, task);
  await d.live?.done(s.task_id);
  return recovered;
}

async function recoverClaimed(d: RecoveryDeps, dir: string, s: RecordingSidecar, task: TaskRecord): Promise<boolean> {
  const wav = join(dir, `${s.task_id}.wav`);
  const size = existsSync(wav) ? statSync(wav).size : 0;
  const bytes = Math.max(0, size - 44) - (Math.max(0, size - 44) % 2);
  await d.endUsage(s.usage_id);
  d.logger.warn(
    { task_id: s.task_id, audio_ms: bytes / 32, status: task.processingStatus },
    'recovering the recording of a process that stopped',
  );
  if (bytes === 0) {
    await d.refundNoAudio(s.usage_id);
    await d.tasks.fail(s.task_id, { source: 'no_audio', code: 'no_audio', message: 'No audio was received.' });
    return true;
  }
  // The header was written with size 0 at start; the file length tells how much audio arrived.
  const fd = await open(wav, 'r+');
  await fd.write(wavHeader(bytes), 0, 44, 0);
  await fd.close();
  const durationMs = Math.round(bytes / 32);
  if (task.processingStatus === 'recording') await d.tasks.advance(s.task_id, 'uploading');
  const m4a = `${wav}.m4a`;
  try {
    await d.audio.encodeFile({ path: wav }, m4a, 'm4a');
    const key = `tasks/${s.task_id}/audio.m4a`;
    await d.blobs.put(key, createReadStream(m4a));
    await d.tasks.setAudio(s.task_id, key, durationMs);
  } finally {
    rmSync(m4a, { force: true });
  }
  const processing =
    task.processingStatus === 'processing' ? await d.tasks.getTask(s.task_id) : await d.tasks.advance(s.task_id, 'processing');
  if (!processing) return false;
  // The live path's summary key: a summary already charged before the crash is not charged again.
  if (d.reprocessor) await d.reprocessor.reprocess(processing, { summary: s.summary ?? null, summaryKey: `summary:live:${s.task_id}` });
  else await d.tasks.complete(s.task_id, { durationMs }); // audio kept; no transcript can be rebuilt here
  return true;
}
