/**
 * Imports during the soak: every `every` ms a WAV of jfk (made by ffmpeg) is uploaded with a
 * Spanish translation and followed to completed or failed (polled each second).
 */
import { execFileSync } from 'node:child_process';
import { openAsBlob } from 'node:fs';
import { join } from 'node:path';
import { JFK } from '../../test/support/audio.js';
import { api, countError, sleep } from './common.js';

export interface Import {
  importId: string;
  taskId: string | null;
  status: string;
  errorCode: string | null;
  /** Upload to completed or failed (s). */
  seconds: number;
}

export const imports: Import[] = [];

export function makeWav(dir: string): string {
  const file = join(dir, 'jfk.wav');
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-i', JFK, '-ar', '16000', '-ac', '1', file]);
  return file;
}

async function one(base: string, key: string, wav: string): Promise<void> {
  const t0 = performance.now();
  const form = new FormData();
  form.append('transcription_languages', '["en-US"]');
  form.append('translation_languages', '["es"]');
  form.append('recognition_mode', 'single');
  form.append('file', await openAsBlob(wav), 'jfk.wav');
  const up = await api<{ data: { import_id: string; error_code?: string } }>(base, key, '/api/v1/imports', { method: 'POST', body: form });
  if (up.status !== 202) {
    countError(`import upload ${up.status} ${up.body.data.error_code}`);
    imports.push({ importId: '', taskId: null, status: `refused ${up.status}`, errorCode: up.body.data.error_code ?? null, seconds: 0 });
    return;
  }
  const rec: Import = { importId: up.body.data.import_id, taskId: null, status: 'pending', errorCode: null, seconds: 0 };
  imports.push(rec);
  for (;;) {
    await sleep(1000);
    const r = await api<{ data: { status: string; error_code: string | null; task_id: string | null } }>(
      base,
      key,
      `/api/v1/imports/${rec.importId}`,
    );
    rec.status = r.body.data.status;
    rec.seconds = (performance.now() - t0) / 1000;
    if (rec.status === 'completed' || rec.status === 'failed') {
      rec.taskId = r.body.data.task_id;
      rec.errorCode = r.body.data.error_code;
      if (rec.errorCode) countError(`import ${rec.errorCode}`);
      return;
    }
  }
}

/** Uploads until `endAt` (the first at once); resolves when every upload has finished. */
export async function importEvery(base: string, key: string, wav: string, everyMs: number, endAt: number): Promise<void> {
  const running: Promise<void>[] = [];
  for (let at = Date.now(); at < endAt - 30_000; at += everyMs) {
    await sleep(at - Date.now());
    running.push(one(base, key, wav).catch((err: Error) => void countError(`import: ${err.message}`)));
  }
  await Promise.all(running);
}
