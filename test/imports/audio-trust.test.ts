/**
 * Issue 26, finding 2: an upload's audio is measured before it is trusted. A WAV whose header
 * claims a 1 Hz (or 4 Hz) sample rate turned 64 KB into 32,000 s of audio: a gigabyte of PCM,
 * minutes of a frozen server and 534 points charged. Now the header is refused (415
 * import_invalid_format, nothing stored, nothing charged); the PCM a worker writes is counted
 * against the temporary-disk limit as it is written; and one account's many imports take
 * turns with another account's instead of running ahead of them. Real HTTP, real engines.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedKey } from '../../src/keys/service.js';
import { api, startTestApp, type TestApp } from '../support/app.js';
import { builtinImportEngines, fundedKey, settledImport, upload } from './support.js';

/** A PCM WAV whose header says `rate` Hz over `dataBytes` bytes of noise (the attack of the issue). */
function lyingWav(rate: number, dataBytes: number): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28); // byte rate: 2 at 1 Hz
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(dataBytes, 40);
  const data = Buffer.alloc(dataBytes);
  for (let i = 0; i < dataBytes; i++) data[i] = (i * 7919) & 0xff;
  return Buffer.concat([header, data]);
}

/** A real MP3 of `seconds` of tone and noise made by ffmpeg's lavfi. */
function toneMp3(seconds: number): Buffer {
  const out = join(mkdtempSync(join(tmpdir(), 'parley-tone-')), 'tone.mp3');
  execFileSync('ffmpeg', [
    ...['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=16000:duration=${seconds}`],
    ...['-ac', '1', '-b:a', '32k', out],
  ]);
  return readFileSync(out);
}

describe('audio measured before it is trusted', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      engines: await builtinImportEngines(),
      // 1 MiB of temporary disk: 32 s of 16 kHz PCM.
      env: { PARLEY_IMPORT_MAX_TEMP_BYTES: String(1024 * 1024), PARLEY_PRICE_IMPORT_PER_MIN: '1' },
    });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  const tempFiles = () => {
    const dir = join(t.dataDir, 'tmp', 'imports');
    return existsSync(dir) ? readdirSync(dir) : [];
  };

  async function usage(key: CreatedKey) {
    const res = await api(t.url, 'GET', '/api/v1/me/usage', { key: key.api_key });
    expect(res.status).toBe(200);
    return res.body.data as Array<{ type: string; points: number }>;
  }

  it.each([1, 4])(
    'a WAV whose header claims %i Hz (64,000 data bytes) is refused 415 import_invalid_format, stored nowhere, charged nothing',
    async (rate) => {
      const key = await fundedKey(t);
      const started = Date.now();
      const res = await upload(t.url, key.api_key, { file: { bytes: lyingWav(rate, 64_000), name: 'lie.wav' } });
      expect(res.status, JSON.stringify(res.body)).toBe(415);
      expect(res.body.data.error_code).toBe('import_invalid_format');
      expect(res.body.data.details).toMatchObject({ detected: 'wav', reason: 'sample_rate', sample_rate: rate, min_sample_rate: 8000 });
      // Refused from the header, before anything was decoded.
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(await usage(key)).toEqual([]);
      const imports = await api(t.url, 'GET', '/api/v1/imports', { key: key.api_key });
      expect(imports.body.data).toEqual([]);
      expect(tempFiles()).toEqual([]);
    },
  );

  it('an honest file is charged its decoded duration, not its size or a header', async () => {
    const key = await fundedKey(t);
    const res = await upload(t.url, key.api_key, { file: { bytes: toneMp3(20), name: 'tone.mp3' } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const done = await settledImport(t, key, res.body.data.import_id);
    expect(done.status, JSON.stringify(done)).toBe('completed');
    const rows = await usage(key);
    expect(rows.map((r) => [r.type, r.points])).toEqual([['import', 1]]); // 20 s: one minute at 1 point
    const task = await api(t.url, 'GET', `/api/v1/tasks/${done.task_id}`, { key: key.api_key });
    expect(Math.abs(task.body.data.duration_ms - 20_000)).toBeLessThan(200);
    expect(tempFiles()).toEqual([]);
  });

  it('the PCM is counted as it is written: past the temporary-disk limit the import fails import_duration_out_of_range, uncharged, its files removed', async () => {
    const key = await fundedKey(t);
    const res = await upload(t.url, key.api_key, { file: { bytes: toneMp3(60), name: 'minute.mp3' } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const done = await settledImport(t, key, res.body.data.import_id);
    expect(done).toMatchObject({ status: 'failed', error_code: 'import_duration_out_of_range' });
    expect(await usage(key)).toEqual([]);
    expect(tempFiles()).toEqual([]);
  });
});

describe('fair share of the import queue', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ engines: await builtinImportEngines(), env: { PARLEY_PRICE_IMPORT_PER_MIN: '1' } });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it("one account's many imports do not starve another account's: they take turns", async () => {
    const busy = await fundedKey(t);
    const other = await fundedKey(t);
    // Long enough that the busy account's five are all queued before its first is done.
    const file = { bytes: toneMp3(240), name: 'four-minutes.mp3' };
    const mine: string[] = [];
    for (const res of await Promise.all([1, 2, 3, 4, 5].map(() => upload(t.url, busy.api_key, { file })))) {
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      mine.push(res.body.data.import_id);
    }
    const theirs = await upload(t.url, other.api_key, { file });
    expect(theirs.status).toBe(202);
    // The order imports finish in, as their owners see it.
    const finished: string[] = [];
    const watch = async (key: CreatedKey, id: string, label: string) => {
      const d = await settledImport(t, key, id, 110_000);
      expect(d.status).toBe('completed');
      finished.push(label);
    };
    await Promise.all([...mine.map((id, i) => watch(busy, id, `busy${i + 1}`)), watch(other, theirs.body.data.import_id, 'other')]);
    // One worker, one import at a time: the busy account's first (maybe second, already
    // claimed) import runs, then the other account's, not after all five.
    expect(finished.indexOf('other'), finished.join(' ')).toBeLessThanOrEqual(2);
  }, 120_000);
});
