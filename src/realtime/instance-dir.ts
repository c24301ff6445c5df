/**
 * A realtime process's own folder under the data dir's realtime temp folder, named by its
 * fleet instance id (the `instance_id` of its live_recordings rows), with an `alive` file it
 * touches every few seconds. The file says which process wrote it (pid and host), so a
 * restarted node knows at once that the previous process on this host is gone, without
 * waiting for its heartbeat to go stale: a kill -9 and a restart ten seconds later must not
 * leave the dead process's recordings to the fleet sweep (which has only the stored segments).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

export const ALIVE_FILE = 'alive';
const HEARTBEAT_MS = 5_000;

interface AliveNote {
  pid: number;
  host: string;
}

/** Creates this process's folder and keeps its heartbeat fresh; returns the stop function. */
export function startHeartbeat(instanceDir: string): () => void {
  mkdirSync(instanceDir, { recursive: true });
  const alive = join(instanceDir, ALIVE_FILE);
  const note: AliveNote = { pid: process.pid, host: hostname() };
  writeFileSync(alive, JSON.stringify(note));
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

/**
 * True when the process that owns `dir` is gone: its heartbeat is older than `staleMs`, or it
 * ran on this host and its pid is no longer a process (or is this process's own pid, as after
 * a container restart where every start is pid 1). A pid reused by an unrelated process only
 * delays the answer until the heartbeat is stale.
 */
export function ownerIsGone(dir: string, staleMs: number): boolean {
  const alive = join(dir, ALIVE_FILE);
  const beat = existsSync(alive) ? statSync(alive).mtimeMs : statSync(dir).mtimeMs;
  if (Date.now() - beat >= staleMs) return true;
  const note = readNote(alive);
  if (!note || note.host !== hostname()) return false;
  if (note.pid === process.pid) return true;
  try {
    process.kill(note.pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

function readNote(alive: string): AliveNote | null {
  try {
    const v = JSON.parse(readFileSync(alive, 'utf8')) as Partial<AliveNote>;
    return typeof v.pid === 'number' && typeof v.host === 'string' ? { pid: v.pid, host: v.host } : null;
  } catch {
    return null; // the older plain-pid note, or being written: the heartbeat decides
  }
}
