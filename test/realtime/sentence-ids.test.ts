/**
 * Sentence numbers when a recognizer shows the next utterance before the previous final:
 * through a real WebSocket on real speech (PocketSphinx decodes finals behind its stream
 * decoder), and the numbering rules themselves (src/realtime/sentence-ids.ts), including an
 * utterance that comes to nothing, which the engines here cannot be made to produce on demand.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
