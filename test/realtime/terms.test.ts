/**
 * The session glossary (`config`) reaches live recognition: "Picovoice" (not in the
 * built-in dictionary) is heard in a session whose glossary has it, written as the glossary
 * writes it, and never in a session without it on the same server (no cross-talk through the
 * pooled decoders). Finals are readable (capital, full stop).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, type TestApp } from '../support/app.js';
import { haveSharedAudio, SHARED_AUDIO } from '../support/audio.js';
import { type Client, connect, event, startLiveApp, startSession, streamPcm, ticketFor, vt } from './support.js';

const have = haveSharedAudio();

/** 29.5-35 s of multiple_keywords.wav ("... Picovoice, pineapple") as 16 kHz PCM. */
function keywordClip(): Buffer {
  const file = join(SHARED_AUDIO, 'multiple_keywords.wav');
  return execFileSync('ffmpeg', [
    '-v',
    'error',
    '-ss',
    '29.5',
    '-t',
    '5.5',
    '-i',
    file,
    '-f',
    's16le',
    '-ar',
    '16000',
    '-ac',
    '1',
    'pipe:1',
  ]);
}

describe.skipIf(!have).each(backends())('live glossary in recognition (%s)', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startLiveApp(backend);
  }, 120_000);
  afterAll(() => t?.close());

  async function finals(glossary?: Record<string, unknown>): Promise<string[]> {
    const cl: Client = await connect(t, [`ticket.${await ticketFor(t)}`]);
    if (glossary) {
      cl.send(vt('config', glossary));
      await event(cl, 'config_updated', 15_000);
    }
    await startSession(cl, {});
    await streamPcm(cl, keywordClip(), 4);
    cl.send(vt('stop'));
    await cl.next((m) => m.data?.action === 'task_complete', 120_000);
    cl.ws.close();
    return cl.messages.filter((m) => m.data?.action === 'result' && m.data.origin.is_final).map((m) => m.data.origin.text as string);
  }

  it('a term from config is heard in its written form; a session without it never hears it', async () => {
    const withTerm = await finals({ terminology: { en: [{ term: 'Picovoice' }] } });
    expect(withTerm).toContain('Picovoice.');
    for (const f of withTerm) expect(f).toMatch(/^[A-Z].*\.$/);
    const without = await finals();
    expect(without.length).toBeGreaterThan(0);
    expect(without.join(' ').toLowerCase()).not.toContain('picovoice');
  }, 300_000);
});
