import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { haveSharedAudio, JFK } from '../support/audio.js';
import { commandArgs } from '../support/server.js';

const exec = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');

async function engines(args: string[]): Promise<{ code: number; out: string; err: string }> {
  try {
    const r = await exec(process.execPath, commandArgs('engines', args), {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn' },
    });
    return { code: 0, out: r.stdout, err: r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, out: err.stdout, err: err.stderr };
  }
}

describe('engines CLI (the forms scripts depend on)', () => {
  it('list --json shows each engine, what it serves or why it is unavailable', async () => {
    const r = await engines(['list', '--json']);
    expect(r.code).toBe(0);
    const list = JSON.parse(r.out);
    const ps = list.engines.find((e: { id: string; kind: string }) => e.id === 'builtin/pocketsphinx' && e.kind === 'file-stt');
    expect(ps).toMatchObject({ available: true, languages: ['en'], tier: 'builtin' });
    expect(list.translation_pairs).toContain('en>es');
    expect(list.translation_pairs).toContain('en>fr'); // through a pivot
    for (const e of list.engines) if (!e.available) expect(e.reason).toEqual(expect.any(String));
  }, 60_000);

  it('with no command, shows per kind which requirements each engine meets', async () => {
    const r = await engines([]);
    expect(r.code).toBe(0);
    const block = (kind: string) => r.out.split('\n\n').find((b) => b.startsWith(`${kind}\n`)) ?? '';
    const stt = block('streaming-stt').split('\n');
    expect(stt[1]).toMatch(/^ {2}engine +tier +languages +interim +word times +diarization +channels +detects language$/);
    expect(stt.find((l) => l.includes('builtin/pocketsphinx'))).toMatch(/builtin\/pocketsphinx +builtin +en +yes +yes +no +1 +no$/);
    expect(block('tts')).toMatch(/builtin\/espeak +builtin +en-US .* +yes +yes/); // streams sentence by sentence, word boundaries
    expect(block('translator')).toMatch(/builtin\/apertium +builtin +\d+ pairs/);
    // Unavailable engines say why, in place of the requirement cells.
    for (const line of r.out.split('\n').filter((l) => l.includes('unavailable:'))) expect(line).toMatch(/unavailable: \S/);
  }, 60_000);

  it('translate --from en --to es --json "TEXT"', async () => {
    const r = await engines(['translate', '--from', 'en', '--to', 'es', '--json', 'The meeting is tomorrow.']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ engine: 'builtin/apertium', from: 'en', to: 'es', text: 'La reunión es mañana.' });
  }, 60_000);

  it('an unserved language exits 2 naming what is served', async () => {
    const r = await engines(['translate', '--from', 'en', '--to', 'ja', 'Hello']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('no configured engine translates en to ja');
    expect(r.err).toContain('en>es');
    const bad = await engines(['transcribe', JFK, '--language', 'not a code!']);
    expect(bad.code).toBe(2);
  }, 60_000);

  it.skipIf(!haveSharedAudio())(
    'transcribe FILE --language en-US --json gives text and words with times',
    async () => {
      const r = await engines(['transcribe', JFK, '--language', 'en-US', '--json']);
      expect(r.code).toBe(0);
      const t = JSON.parse(r.out);
      expect(t.text).toContain('country');
      expect(t.duration_ms).toBeGreaterThan(10_900);
      expect(t.words.length).toBeGreaterThan(10);
      expect(t.words[0]).toEqual({ text: expect.any(String), start_ms: expect.any(Number), end_ms: expect.any(Number) });
    },
    120_000,
  );
});
