/**
 * One session's 10,000 events (2,000 sentences: three interims, the final, its translation)
 * while one subscriber reads nothing: its outbox stays within the slow-consumer policy and it
 * is cut off by that policy; the subscribers that read get every final and translation, in
 * order, each batch before the next is published (the publisher waits for them, never for
 * the stalled one). Over the in-process bus and over Redis; an SSE subscriber and the
 * owner's WebSocket as the stalled one.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { SseStream } from '../../src/platform/http/sse.js';
import { CLOSE } from '../../src/realtime/protocol.js';
import type { SessionEvent } from '../../src/stream/events.js';
import { SUBSCRIBER_POLICY } from '../../src/stream/outbox.js';
import { connect, startLiveApp, startSession, ticketAndKey } from '../realtime/support.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { testRedisUrl } from '../support/services.js';
import { until } from '../support/until.js';
import { type Got, kept, publishPaced, rawStreamRoute, readingClient, STREAM_PATH, stalledClient } from './support.js';

const redisUrl = testRedisUrl();
const buses = [{ bus: 'in-process', env: {} as Record<string, string> }];
if (redisUrl) buses.push({ bus: 'redis', env: { REDIS_URL: redisUrl } });

const SENTENCES = 2000;
const SIZE = 2000;
const expectedKept = Array.from({ length: SENTENCES }, (_, sid) => [
  ['result', sid],
  ['translation', sid],
]).flat();

function increasing(seqs: number[]): boolean {
  return seqs.every((s, i) => i === 0 || s > (seqs[i - 1] as number));
}

describe.each(buses)('a subscriber that reads nothing while 10,000 events pass ($bus bus)', ({ env }) => {
  const apps: TestApp[] = [];
  afterAll(async () => {
    for (const a of apps) await a.close();
  });

  it('an SSE subscriber: cut off by the policy with its queue bounded; the others get every final in order', async () => {
    const opened: SseStream[] = [];
    const t = await startTestApp({ env, routes: rawStreamRoute(opened) });
    apps.push(t);
    const taskId = randomUUID();
    const path = `${STREAM_PATH}/${taskId}/events`;
    const pub = await t.app.deps.streams.publisher(taskId, 1);
    const stalled = stalledClient(Number(new URL(t.url).port), path);
    await until(() => opened.length === 1, 10_000, 'the stalled stream');
    const reader = readingClient(t.url + path);
    await until(() => opened.length === 2, 10_000, 'the reading stream');
    const [stalledSse, readerSse] = opened as [SseStream, SseStream];
    const raw: SessionEvent[] = [];
    await t.app.deps.streams.subscribe(taskId, (e) => raw.push(e), { replay: false });

    const published = await publishPaced(pub, SENTENCES, SIZE, () => reader.events.at(-1)?.data.seq ?? 0);
    pub.end();
    await reader.done;

    expect(published).toBe(10_000);
    // The stalled subscriber: never more waiting than the policy allows, interims superseded first, then cut off.
    expect(stalledSse.stats.closed).toBe('overflow');
    expect(stalledSse.stats.maxQueued).toBeLessThanOrEqual(SUBSCRIBER_POLICY.maxFrames + 1);
    expect(stalledSse.stats.dropped).toBeGreaterThan(0);
    expect(stalledSse.stats.written).toBeLessThan(published);
    const got = await stalled.drain();
    expect(got.events.length).toBeLessThan(published);
    expect(increasing(got.events.map((e) => e.data.seq))).toBe(true);
    expect(kept(got.events)).toEqual(expectedKept.slice(0, kept(got.events).length));

    // The reading SSE subscriber: every final and translation in order, then the end.
    expect(kept(reader.events)).toEqual(expectedKept);
    expect(increasing(reader.events.map((e) => e.data.seq))).toBe(true);
    expect(reader.events.at(-1)).toMatchObject({ event: 'status', data: { status: 'ended', task_id: taskId } });
    expect(readerSse.stats.closed).toBe('closed');
    // The raw subscriber: every event, seq 1..10,001 without a gap.
    expect(raw.map((e) => e.seq)).toEqual(Array.from({ length: published + 1 }, (_, i) => i + 1));
  }, 180_000);

  it("the owner's WebSocket: closed with 4013 by the policy; an SSE subscriber gets every final in order", async () => {
    const opened: SseStream[] = [];
    const t = await startLiveApp('sqlite', {
      env: { ...env, PARLEY_WS_DISCONNECT_GRACE_SECONDS: '600' },
      routes: rawStreamRoute(opened),
    });
    apps.push(t);
    const { ticket } = await ticketAndKey(t);
    const owner = await connect(t, [`ticket.${ticket}`]);
    const started = await startSession(owner, { translation_languages: ['es'], realtime_translation: true });
    const taskId = started.data.task_id as string;
    const pub = t.app.deps.streams.local(taskId);
    if (!pub) throw new Error('the session has no publisher on this node');
    const reader = readingClient(`${t.url}${STREAM_PATH}/${taskId}/events`);
    await until(() => opened.length === 1, 10_000, 'the reading stream');
    // The owner stops reading: its socket is paused (TCP pushes back to the server).
    const socket = (owner.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    socket.pause();

    const published = await publishPaced(pub, SENTENCES, SIZE, () => reader.events.at(-1)?.data.seq ?? 0);
    expect(published).toBe(10_000);
    socket.resume();
    const closed = await owner.closed;
    expect(closed.code).toBe(CLOSE.tooSlow);
    const ownerGot: Got[] = owner.messages
      .filter((m) => m.type === 'voice-translation' && (m.data.action === 'result' || m.data.action === 'translation'))
      .map((m) => ({ event: m.data.action, data: m.data }));
    expect(ownerGot.length).toBeGreaterThan(0);
    expect(ownerGot.length).toBeLessThan(published);
    expect(kept(ownerGot)).toEqual(expectedKept.slice(0, kept(ownerGot).length));
    expect(kept(reader.events)).toEqual(expectedKept);
  }, 180_000);
});
