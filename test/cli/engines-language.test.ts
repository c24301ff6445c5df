import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'parley-cli-'));

async function engines(args: string[]): Promise<{ code: number; out: string; err: string }> {
  try {
    const r = await exec('npm', ['run', '-s', 'engines', '--', ...args], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'warn' } });
    return { code: 0, out: r.stdout, err: r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, out: err.stdout, err: err.stderr };
  }
}

describe('engines CLI: synthesize and summarize (built-in language tier)', () => {
  it('synthesize --language en-US --out FILE.mp3 "TEXT" writes an MP3 ffprobe reads', async () => {
    const out = join(dir, 'hello.mp3');
    const r = await engines(['synthesize', '--language', 'en-US', '--out', out, 'Hello from Parley.']);
    expect(r.code).toBe(0);
    const duration = Number(
      execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', out], { encoding: 'utf8' }),
    );
    expect(duration).toBeGreaterThan(0.5);
  }, 60_000);

  it('synthesize --json reports the boundaries of the text', async () => {
    const out = join(dir, 'hola.mp3');
    const r = await engines(['synthesize', '--language', 'es', '--out', out, '--json', 'Hola a todos.']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j).toMatchObject({ engine: 'builtin/espeak', out });
    expect(j.boundaries.map((b: { text: string }) => b.text)).toEqual(['Hola', 'a', 'todos']);
  }, 60_000);

  it('synthesize in a language without a voice exits non-zero naming the served languages', async () => {
    const r = await engines(['synthesize', '--language', 'xh', '--out', join(dir, 'x.mp3'), 'Molo']);
    expect(r.code).not.toBe(0);
    expect(r.err).toContain('en-US');
  }, 60_000);

  it('summarize FILE.txt --json gives the summary text and character usage', async () => {
    const file = join(dir, 'meeting.txt');
    writeFileSync(
      file,
      [
        'The team reviewed the launch plan for the mobile app.',
        'We decided to launch the mobile app in March.',
        'Maria will send the launch budget to finance by Friday.',
        'Lunch was pizza.',
        'The design review of the mobile app found two problems with the login screen.',
        'Tom will fix the login screen problems before the launch.',
        'The launch plan needs a marketing budget for the mobile app.',
        'Someone asked whether the web version launches at the same time.',
      ].join('\n'),
    );
    const r = await engines(['summarize', file, '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.engine).toBe('builtin/extractive-summarizer');
    // Eight sentences: long enough to summarize (shorter text comes back whole, too_short).
    expect(j.text).toMatch(/^## Key points\n- /);
    expect(j.text).not.toContain('pizza');
    expect(j.usage.input).toBeGreaterThan(100);
    expect(j.truncated).toBe(false);
  }, 60_000);
});
