/**
 * Sentence numbers when a recognizer shows the next utterance before the previous final:
 * through a real WebSocket on real speech (PocketSphinx decodes finals behind its stream
 * decoder), and the numbering rules themselves (src/realtime/sentence-ids.ts), including an
 * utterance that comes to nothing, which the engines here cannot be made to produce on demand.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineRegistry } from '../../src/engines/registry.js';
import type { StreamingRecognizer, StreamingSttOptions, SttResult } from '../../src/engines/types.js';
import { keyOf, newLane, SentenceIds } from '../../src/realtime/sentence-ids.js';
import type { TestApp } from '../support/app.js';
import { parseSseBlock } from '../support/sse.js';
import { connect, jfkPcm, startLiveApp, startSession, streamPcm, ticketAndKey, vt } from './support.js';

describe('sentence numbers of a live recording (sqlite, jfk.flac at 4x real time)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startLiveApp('sqlite');
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it("the next sentence's interims come before the previous final, each under its own sid; finals and the transcript in sid order", async () => {
    const { ticket, key } = await ticketAndKey(t);
    const cl = await connect(t, [`ticket.${ticket}`]);
    const started = await startSession(cl, {});
    await streamPcm(cl, jfkPcm(), 4);
    cl.send(vt('stop'));
    await cl.next((m) => m.data?.action === 'task_complete', 60_000);
    const results = cl.messages.filter((m) => m.data?.action === 'result').map((m) => m.data.origin);
    const finals = results.filter((o) => o.is_final);
    expect(finals.length).toBeGreaterThanOrEqual(2);
    // Numbers follow the speech: sids first show in increasing order, finals are 1..n in order.
    const firstShown = [...new Set(results.map((o) => o.sid))];
    expect(firstShown).toEqual(finals.map((_, i) => i + 1));
    expect(finals.map((o) => o.sid)).toEqual(finals.map((_, i) => i + 1));
    // Each final follows an interim of its own sentence.
    for (const f of finals) expect(results.slice(0, results.indexOf(f)).some((o) => !o.is_final && o.sid === f.sid)).toBe(true);
    // Some later sentence showed before an earlier one's final (it did not wait for it).
    expect(finals.some((f) => results.slice(0, results.indexOf(f)).some((o) => o.sid > f.sid))).toBe(true);
    // The transcript (history) holds the finals, in order.
    const taskId = started.data.task_id as string;
    const res = await fetch(`${t.url}/api/v1/sse/history/transcribe/${taskId}`, { headers: { 'x-api-key': key } });
    const sentences = (await res.text())
      .split('\n\n')
      .map((b) => parseSseBlock(b.trim()))
      .filter((e) => e?.event === 'init_sentence')
      .map((e) => e!.data);
    expect(sentences.map((x) => [x.sid, x.origin])).toEqual(finals.map((o) => [o.sid, o.text]));
    cl.ws.close();
  }, 120_000);
});

/**
 * A test double: no engine here comes to nothing on demand. Each audio write sends the next
 * scripted result (utterance, text, final); end() sends the last.
 */
function scriptedRecognizer(script: Array<[number, string, boolean]>): StreamingRecognizer {
  return {
    id: 'test/scripted',
    kind: 'streaming-stt',
    tier: 'builtin',
    capabilities: { languages: ['en'], streaming: true, interimResults: true, diarization: false },
    open: async (options: StreamingSttOptions) => {
      let next = 0;
      const send = () => {
        const step = script[next++];
        if (!step) return;
        const [utterance, text, isFinal] = step;
        const r: SttResult = { text, isFinal, startMs: utterance * 1000, endMs: utterance * 1000 + 500, utterance };
        options.onResult(r);
      };
      return {
        write: send,
        setTerms: () => {},
        end: async () => {
          while (next < script.length) send();
        },
        abort: () => {},
      };
    },
  };
}

describe('sentences that come to nothing (sqlite, a scripted recognizer)', () => {
  it('a withdrawn sentence gets a final of empty text when a later one showed, else gives its number back; neither is in the transcript', async () => {
    const t = await startLiveApp('sqlite', {
      engines: EngineRegistry.fromEngines([
        scriptedRecognizer([
          [0, 'one', false],
          [1, 'two', false],
          [0, '', true], // utterance 0 came to nothing after 1 showed: withdrawn
          [1, 'two words', true],
          [2, 'three', false],
          [2, '', true], // nothing showed after it: its number is given back
          [3, 'four', false],
          [3, 'four', true],
        ]),
      ]),
    });
    try {
      const { ticket, key } = await ticketAndKey(t);
      const cl = await connect(t, [`ticket.${ticket}`]);
      const started = await startSession(cl, {});
      for (let i = 0; i < 7; i++) {
        cl.send(vt('audio', { audio: Buffer.alloc(3200).toString('base64') }));
        await new Promise((r) => setTimeout(r, 50));
      }
      cl.send(vt('stop'));
      await cl.next((m) => m.data?.action === 'task_complete', 30_000);
      const results = cl.messages.filter((m) => m.data?.action === 'result').map((m) => m.data.origin);
      expect(results.map((o) => [o.sid, o.text, o.is_final])).toEqual([
        [1, 'One', false],
        [2, 'Two', false],
        [1, '', true],
        [2, 'Two words.', true],
        [3, 'Three', false],
        [3, 'Four', false],
        [3, 'Four.', true],
      ]);
      const res = await fetch(`${t.url}/api/v1/sse/history/transcribe/${started.data.task_id}`, { headers: { 'x-api-key': key } });
      const sentences = (await res.text())
        .split('\n\n')
        .map((b) => parseSseBlock(b.trim()))
        .filter((e) => e?.event === 'init_sentence')
        .map((e) => [e!.data.sid, e!.data.origin]);
      expect(sentences).toEqual([
        [2, 'Two words.'],
        [3, 'Four.'],
      ]);
      cl.ws.close();
    } finally {
      await t.close();
    }
  }, 60_000);
});

describe('SentenceIds', () => {
  const numbered = (lane: ReturnType<typeof newLane>, utterance: number) =>
    keyOf(lane, { text: 'x', isFinal: false, startMs: 0, endMs: 0, utterance });
  const unnumbered = (lane: ReturnType<typeof newLane>) => keyOf(lane, { text: 'x', isFinal: false, startMs: 0, endMs: 0 });

  it('numbered utterances keep the sid of their first result; a further final part gets the next one', () => {
    const ids = new SentenceIds(1);
    const lane = newLane('main');
    expect(ids.of(numbered(lane, 0))).toBe(1);
    expect(ids.of(numbered(lane, 1))).toBe(2);
    expect(ids.of(numbered(lane, 0))).toBe(1);
    ids.close(numbered(lane, 0));
    expect(ids.of(numbered(lane, 0))).toBe(3); // a second speaker's part of the same final
    expect(ids.nextSid).toBe(4);
  });

  it('unnumbered results: a final closes the sentence; a replacing main stream takes on the one its predecessor left open', () => {
    const ids = new SentenceIds(5);
    const a = newLane('main');
    const b = newLane('main');
    expect(ids.of(unnumbered(a))).toBe(5);
    expect(ids.of(unnumbered(b))).toBe(5);
    ids.close(unnumbered(b));
    expect(ids.of(unnumbered(a))).toBe(6);
    // Channels (own lanes) never share.
    expect(ids.of(unnumbered(newLane()))).toBe(7);
  });

  it('an utterance that came to nothing gives its number back when it is the newest, else is withdrawn', () => {
    const ids = new SentenceIds(1);
    const lane = newLane('main');
    ids.of(numbered(lane, 0));
    expect(ids.withdraw(numbered(lane, 0))).toBeNull();
    expect(ids.of(numbered(lane, 1))).toBe(1); // replaces the withdrawn interims on every screen
    ids.of(numbered(lane, 2));
    expect(ids.withdraw(numbered(lane, 1))).toBe(1); // a later sentence has 2: 1 must be withdrawn
    expect(ids.withdraw(numbered(lane, 7))).toBeNull(); // never shown: nothing to do
    expect(ids.of(numbered(lane, 3))).toBe(3);
  });
});
