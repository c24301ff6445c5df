/**
 * Nothing lost: after the run, every recording and import must be a completed task whose
 * duration is within 1 s of the audio sent and whose stored sentences are what was expected:
 * for live recordings, the finals the client received and the same count for every loop of
 * jfk; for imports, the same count for every import. Sentences are read from the history
 * stream (`/api/v1/sse/history/transcribe/{id}`), the stored transcript.
 */
import { api, mode, sleep } from './common.js';
import type { Import } from './imports.js';
import type { Recording } from './live.js';

interface Task {
  task_id: string;
  processing_status: string;
  duration_ms: number;
}

async function tasks(base: string, key: string, ids: string[]): Promise<Map<string, Task>> {
  const found = new Map<string, Task>();
  for (let i = 0; i < ids.length; i += 100) {
    const q = ids
      .slice(i, i + 100)
      .map((id) => `task_ids[]=${id}`)
      .join('&');
    const r = await api<{ data: { tasks: Task[] } }>(base, key, `/api/v1/tasks?status=all&${q}`);
    for (const t of r.body.data.tasks) found.set(t.task_id, t);
  }
  return found;
}

/** The stored sentences of a task with non-empty text. */
async function storedSentences(base: string, key: string, taskId: string): Promise<number> {
  const r = await fetch(`${base}/api/v1/sse/history/transcribe/${taskId}`, { headers: { 'x-api-key': key } });
  const text = await r.text();
  let n = 0;
  for (const block of text.split('\n\n')) {
    if (!block.includes('event: init_sentence')) continue;
    const data = JSON.parse(/^data: (.+)$/m.exec(block)?.[1] ?? '{}') as { origin?: string };
    if ((data.origin ?? '').trim() !== '') n++;
  }
  return n;
}

export interface Check {
  label: string;
  taskId: string | null;
  status: string;
  durationMs: number | null;
  expectedMs: number;
  sentences: number;
  /** Units the sentence count is expected per (loops of jfk; 1 for an import). */
  units: number;
  /** Finals the client received live (recordings only). */
  received: number | null;
  /** The error codes the server sent during the recording (stt_audio_dropped, invalid_data for audio_rate): what explains a shortfall. */
  notes: string[];
}

export async function verify(base: string, key: string, recordings: Recording[], done: Import[], importMs: number): Promise<Check[]> {
  const ids = [...recordings.map((r) => r.taskId), ...done.flatMap((i) => (i.taskId ? [i.taskId] : []))];
  // Finalization (M4A, the transcript) may still run for the last recordings.
  let found = await tasks(base, key, ids);
  for (let i = 0; i < 60 && [...found.values()].some((t) => !['completed', 'failed'].includes(t.processing_status)); i++) {
    await sleep(1000);
    found = await tasks(base, key, ids);
  }
  const check = async (
    label: string,
    taskId: string | null,
    expectedMs: number,
    units: number,
    received: number | null,
    notes: string[] = [],
  ) => {
    const t = taskId ? found.get(taskId) : undefined;
    return {
      label,
      taskId,
      status: t?.processing_status ?? 'missing',
      durationMs: t?.duration_ms ?? null,
      expectedMs,
      sentences: t ? await storedSentences(base, key, t.task_id) : 0,
      units,
      received,
      notes,
    };
  };
  const out: Check[] = [];
  for (const r of recordings) out.push(await check(r.kind, r.taskId, r.sentMs, r.loops, r.finals.size, [...new Set(r.errors)]));
  for (const i of done) out.push(await check('import', i.taskId, importMs, 1, null));
  return out;
}

/** The findings: each check that is not completed, off by more than 1 s, or off the expected count. */
export function losses(checks: Check[]): { perUnit: Map<string, number | undefined>; lost: string[] } {
  const perUnit = new Map<string, number | undefined>();
  for (const label of new Set(checks.map((c) => c.label)))
    perUnit.set(label, mode(checks.filter((c) => c.label === label && c.sentences % c.units === 0).map((c) => c.sentences / c.units)));
  const lost: string[] = [];
  for (const c of checks) {
    const what = `${c.label} ${c.taskId ?? '(no task)'}${c.notes.length ? ` (${c.notes.join(', ')})` : ''}`;
    if (c.status !== 'completed') lost.push(`${what}: ${c.status}`);
    else if (c.durationMs === null || Math.abs(c.durationMs - c.expectedMs) > 1000)
      lost.push(`${what}: duration ${c.durationMs} ms for ${c.expectedMs} ms sent`);
    if (c.received !== null && c.sentences !== c.received)
      lost.push(`${what}: ${c.sentences} sentences stored, ${c.received} received live`);
    const per = perUnit.get(c.label);
    if (c.status === 'completed' && per !== undefined && c.sentences !== per * c.units)
      lost.push(`${what}: ${c.sentences} sentences for ${c.units} x ${per}`);
  }
  return { perUnit, lost };
}
