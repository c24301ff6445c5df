/**
 * Recordings of a process that died (kill -9, power loss) are not lost. Each realtime process
 * keeps its recordings' audio under its own folder `tmp/realtime/<instance>/` (`<task>.wav` plus
 * a `<task>.json` sidecar with the usage row; instance-dir.ts). A folder whose process is gone
 * (its pid no longer runs on this host, or its heartbeat is stale) is recovered at start and
 * then every few seconds: each of its recordings still in `recording`, or in `uploading` /
 * `processing` (the process died while finalizing it), gets its usage row ended, its audio
 * stored as M4A, and is moved to `processing` and handed to the task reprocessor (the durable
 * job that rebuilds a transcript from stored audio: recognition, translations and the summary
 * the session asked for, kept in the sidecar), which completes it.
 * A recording with no audio fails with `no_audio` and is refunded.
 *
 * The audio is the newest of two copies: the local WAV (every byte that arrived) and the
 * segments in the blob store (whole segments only, but a resume elsewhere may have gone on
 * with them). The longer one wins, here and in the fleet sweep (`recoverLocalCopy`), and the
 * local files are deleted only once the recording is finished from the newest audio, or once
 * another process holds the recording (resumed it, or finished it).
 */
import { createReadStream, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { AudioTools } from '../engines/audio/port.js';
import type { SummaryRequest } from '../processing/summarize.js';
import type { BlobStore } from '../storage/types.js';
import type { TaskReprocessor, TaskService } from '../tasks/service.js';
import type { TaskRecord } from '../tasks/store.js';
import { ALIVE_FILE, ownerIsGone } from './instance-dir.js';
import { downloadSegments } from './live/segments.js';
import { wavHeader } from './wav.js';

/** What the sidecar of a running recording says. */
export interface RecordingSidecar {
  task_id: string;
  usage_id: string;
  /** The summary the session asked for (start or set_summary); the reprocessing job makes it. */
  summary?: SummaryRequest | null;
}

/**
 * The live_recordings row of a local recording, taken for its recovery: `claimed` (with the
 * PCM bytes its stored segments hold), `none` (no row), `taken` (another process resumed it
 * or it was finished: the local files go) or `busy` (parked for a resume, or another pass is
 * recovering it: the files stay, and go once the row says it ended).
 */
export type LocalClaim = { status: 'claimed'; storedBytes: number } | { status: 'none' | 'taken' | 'busy' };

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
   * recovery from `holder` (the dead process's instance id, its folder's name), `done` ends
   * it (and drops its segments) once recovered.
   */
  live?: { claim(taskId: string, holder: string): Promise<LocalClaim>; done(taskId: string): Promise<void> };
}

type Outcome = 'recovered' | 'dropped' | 'kept';

/** Recovers the recordings of gone processes' folders under `baseDir` (never `ownDir`). */
export async function recoverOrphans(d: RecoveryDeps, baseDir: string, ownDir: string, staleMs: number): Promise<number> {
  let recovered = 0;
  for (const dir of goneFolders(baseDir, ownDir, staleMs)) {
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
      let outcome: Outcome;
      try {
        const sidecar = JSON.parse(readFileSync(join(dir, file), 'utf8')) as RecordingSidecar;
        outcome = await recoverOne(d, dir, sidecar);
      } catch (err) {
        d.logger.error({ err, file: join(dir, file) }, 'recording recovery failed; files kept for the next pass');
        continue;
      }
      if (outcome === 'kept') continue;
      if (outcome === 'recovered') recovered++;
      dropLocal(dir, file.replace(/\.json$/, ''));
    }
    if (readdirSync(dir).every((f) => f === ALIVE_FILE)) rmSync(dir, { recursive: true, force: true });
  }
  return recovered;
}

/**
 * The fleet sweep claimed `taskId` (its holder is gone) and would finish it from the stored
 * segments: when this data dir still has the gone holder's local WAV and it holds more audio
 * than the segments, the recording is recovered from it here instead. True: done (row ended,
 * local files and segments deleted); false: the segments are the newest audio.
 */
export async function recoverLocalCopy(
  d: RecoveryDeps,
  baseDir: string,
  ownDir: string,
  staleMs: number,
  taskId: string,
  storedBytes: number,
): Promise<boolean> {
  for (const dir of goneFolders(baseDir, ownDir, staleMs)) {
    const sidecarFile = join(dir, `${taskId}.json`);
    if (!existsSync(sidecarFile)) continue;
    if (pcmBytes(join(dir, `${taskId}.wav`)) <= storedBytes) return false;
    const sidecar = JSON.parse(readFileSync(sidecarFile, 'utf8')) as RecordingSidecar;
    const task = await d.tasks.getTask(taskId);
    if (!task || !UNFINISHED.has(task.processingStatus)) return false;
    await recoverClaimed(d, dir, sidecar, task, storedBytes);
    await d.live?.done(taskId);
    dropLocal(dir, taskId);
    return true;
  }
  return false;
}

function goneFolders(baseDir: string, ownDir: string, staleMs: number): string[] {
  if (!existsSync(baseDir)) return [];
  return readdirSync(baseDir)
    .map((name) => join(baseDir, name))
    .filter((dir) => dir !== ownDir && statSync(dir).isDirectory() && ownerIsGone(dir, staleMs));
}

function dropLocal(dir: string, taskId: string): void {
  rmSync(join(dir, `${taskId}.json`), { force: true });
  rmSync(join(dir, `${taskId}.wav`), { force: true });
}

/** Whole 16-bit samples after the 44-byte header (written with size 0 at start; the file length tells). */
function pcmBytes(wav: string): number {
  const size = existsSync(wav) ? statSync(wav).size : 0;
  const bytes = Math.max(0, size - 44);
  return bytes - (bytes % 2);
}

/** A live task the dead process had not finished: still recording, or killed while finalizing it. */
const UNFINISHED = new Set(['recording', 'uploading', 'processing']);

async function recoverOne(d: RecoveryDeps, dir: string, s: RecordingSidecar): Promise<Outcome> {
  const task = await d.tasks.getTask(s.task_id);
  // Finalized, force-failed or deleted meanwhile: nothing to do (a force-fail keeps its own outcome).
  if (!task || !UNFINISHED.has(task.processingStatus)) return 'dropped';
  const holder = dir.split(/[\\/]/).pop() ?? '';
  const claim = d.live ? await d.live.claim(s.task_id, holder) : ({ status: 'none' } as const);
  if (claim.status === 'taken') return 'dropped';
  if (claim.status === 'busy') return 'kept';
  await recoverClaimed(d, dir, s, task, claim.status === 'claimed' ? claim.storedBytes : 0);
  await d.live?.done(s.task_id);
  return 'recovered';
}

async function recoverClaimed(d: RecoveryDeps, dir: string, s: RecordingSidecar, task: TaskRecord, storedBytes: number): Promise<void> {
  const local = join(dir, `${s.task_id}.wav`);
  const localBytes = pcmBytes(local);
  // The newest audio: the segments when they hold more (a resume elsewhere went on with them).
  const fromSegments = storedBytes > localBytes;
  const wav = fromSegments ? join(dir, `${s.task_id}.segments.wav`) : local;
  let bytes = localBytes;
  if (fromSegments) {
    writeFileSync(wav, wavHeader(0));
    bytes = await downloadSegments(d.blobs, s.task_id, wav);
    bytes -= bytes % 2;
  }
  await d.endUsage(s.usage_id);
  d.logger.warn(
    { task_id: s.task_id, audio_ms: bytes / 32, local_ms: localBytes / 32, stored_ms: storedBytes / 32, status: task.processingStatus },
    'recovering the recording of a process that stopped',
  );
  if (bytes === 0) {
    await d.refundNoAudio(s.usage_id);
    await d.tasks.fail(s.task_id, { source: 'no_audio', code: 'no_audio', message: 'No audio was received.' });
    return;
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
    if (fromSegments) rmSync(wav, { force: true });
  }
  const processing =
    task.processingStatus === 'processing' ? await d.tasks.getTask(s.task_id) : await d.tasks.advance(s.task_id, 'processing');
  if (!processing) return;
  // The live path's summary key: a summary already charged before the crash is not charged again.
  if (d.reprocessor) await d.reprocessor.reprocess(processing, { summary: s.summary ?? null, summaryKey: `summary:live:${s.task_id}` });
  else await d.tasks.complete(s.task_id, { durationMs }); // audio kept; no transcript can be rebuilt here
}
