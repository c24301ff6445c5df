/**
 * Two app instances that share only PostgreSQL and Redis: a live session streamed at
 * real-time pace (jfk.flac, English with Spanish translation) on instance A; on instance B
 * a raw subscriber from the start, a late joiner (replay) and an SSE subscriber. Every one
 * gets every final in order with its translation, as the owner's WebSocket on A does; the
 * owner's WebSocket gets exactly what it got before the stream existed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SseStream } from '../../src/platform/http/sse.js';
import type { SessionEvent } from '../../src/stream/events.js';
import { wireOrigin } from '../../src/stream/wire.js';
import { connect, event, jfkPcm, startLiveApp, startSession, streamPcm, vt } from '../realtime/support.js';
import { api, createPgSchema, dropPgSchema, type TestApp } from '../support/app.js';
import { testRedisUrl } from '../support/services.js';
import { until } from '../support/until.js';
import { type Got, rawStreamRoute, readingClient, STREAM_PATH } from './support.js';

const redisUrl = testRedisUrl();
const pg = Boolean(process.env.DATABASE_URL);

/** Finals and translations with their text, as the owner's WebSocket shows them. */
function transcript(events: Got[]): string[] {
  return events
    .filter((e) => e.event === 'translation' || (e.event === 'result' && e.data.origin.is_final))
    .map((e) =>
      e.event === 'result' ? `${e.data.origin.sid} en ${e.data.origin.text}` : `${e.data.sid} ${e.data.language} ${e.data.text}`,
    );
}

/** Stream events as the owner's WebSocket frames them (src/stream/wire.ts: a result's start_ms becomes start_time mm:ss). */
const asGot = (events: SessionEvent[]): Got[] =>
  events.map((e) =>
    e.event === 'result' ? { event: e.event, data: { ...e.data, origin: wireOrigin(e.data.origin) } } : { event: e.event, data: e.data },
  );

describe.skipIf(!redisUrl || !pg)('session stream across two instances (PostgreSQL + Redis)', () => {
  const cleanup: (() => unknown)[] = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
  });

  it('a session on A reaches subscribers on B: every final in order with translations; late joiners get the replay', async () => {
    const pgSchema = await createPgSchema();
    cleanup.push(() => dropPgSchema(pgSchema));
    const dirs = [mkdtempSync(join(tmpdir(), 'parley-a-')), mkdtempSync(join(tmpdir(), 'parley-b-'))];
    cleanup.push(() => {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    });
    const opened: SseStream[] = [];
    const a: TestApp = await startLiveApp('postgres', {
      env: { PARLEY_ROLES: 'realtime', REDIS_URL: redisUrl! },
      reuse: { dataDir: dirs[0]!, pgSchema },
    });
    cleanup.push(() => a.close());
    const b: TestApp = await startLiveApp('postgres', {
      env: { PARLEY_ROLES: 'api,worker', REDIS_URL: redisUrl! },
      reuse: { dataDir: dirs[1]!, pgSchema },
      routes: rawStreamRoute(opened),
    });
    cleanup.push(() => b.close());

    const created = await b.app.deps.keys.createKey({});
    await b.app.deps.billing.grantCredit({ accountId: created.account_id, points: 50, pool: 'account' });
    const ticket = (await api(b.url, 'POST', '/api/v1/auth/ticket', { key: created.api_key })).body.data.ticket as string;
    const owner = await connect(a, [`ticket.${ticket}`]);
    const started = await startSession(owner, { translation_languages: ['es'], realtime_translation: true });
    const taskId = started.data.task_id as string;
    expect(a.app.deps.streams.local(taskId)).toBeDefined();
    expect(b.app.deps.streams.local(taskId)).toBeUndefined();

    // On B before any audio: a raw subscriber and an SSE subscriber.
    const early: SessionEvent[] = [];
    const earlySub = await b.app.deps.streams.subscribe(taskId, (e) => early.push(e));
    const sse = readingClient(`${b.url}${STREAM_PATH}/${taskId}/events`);
    await until(() => opened.length === 1, 10_000, 'the SSE stream on B');

    // Real-time pace; a late joiner on B once the owner has seen a final.
    let late: SessionEvent[] | null = null;
    let missed = 0;
    let lateSub: Awaited<ReturnType<typeof b.app.deps.streams.subscribe>> | null = null;
    await streamPcm(owner, jfkPcm(), 1, async () => {
      const finals = owner.messages.filter((m) => m.data?.action === 'result' && m.data.origin.is_final).length;
      if (finals >= 1 && !late) {
        missed = finals;
        late = [];
        const into = late;
        lateSub = await b.app.deps.streams.subscribe(taskId, (e) => into.push(e));
      }
    });
    if (!late) {
      // Recognition lagged behind the audio (a loaded machine): join once the first final is out.
      await owner.next((m) => m.data?.action === 'result' && m.data.origin.is_final, 60_000);
      missed = 1;
      const into: SessionEvent[] = [];
      late = into;
      lateSub = await b.app.deps.streams.subscribe(taskId, (e) => into.push(e));
    }
    owner.send(vt('stop'));
    const done = await event(owner, 'task_complete', 60_000);
    expect(done.data).toMatchObject({ task_id: taskId, status: 'completed' });
    await Promise.all([earlySub.ended, sse.done, (lateSub as { ended: Promise<void> } | null)?.ended]);

    // What the owner's WebSocket got, as stream events.
    const ownerEvents: Got[] = owner.messages
      .filter((m) => m.type === 'voice-translation' && ['result', 'translation', 'status'].includes(m.data.action))
      .map((m) => {
        const { action, ...data } = m.data;
        return { event: action, data };
      });
    const ownerTranscript = transcript(ownerEvents);
    expect(ownerTranscript.filter((l) => l.includes(' en ')).length).toBeGreaterThanOrEqual(2);
    expect(ownerTranscript.filter((l) => l.includes(' es ')).length).toBe(ownerTranscript.filter((l) => l.includes(' en ')).length);
    expect(ownerEvents.filter((e) => e.event === 'status').map((e) => e.data.status)).toEqual([
      'stopping',
      'uploading',
      'processing',
      'ended',
    ]);
    expect(owner.messages.map((m) => m.data?.action).slice(-2)).toEqual(['status', 'task_complete']);

    // B, subscribed from the start: `status: started` (the stream's first event, published
    // before the owner's socket attached; it got session_started), then exactly the owner's
    // events, numbered 1..n without a gap.
    expect(asGot(early.slice(0, 1))).toEqual([{ event: 'status', data: { status: 'started' } }]);
    expect(asGot(early.slice(1))).toEqual(ownerEvents);
    expect(early.map((e) => e.seq)).toEqual(early.map((_, i) => i + 1));
    expect(earlySub.gaps).toBe(0);
    // B over SSE: every final and translation in order, then the end.
    expect(transcript(sse.events.map((e) => ({ event: e.event, data: e.data })))).toEqual(ownerTranscript);
    expect(sse.events.at(-1)).toMatchObject({ event: 'status', data: { status: 'ended', task_id: taskId } });
    // B's late joiner: the replay gave it the finals it had missed.
    expect(missed).toBeGreaterThanOrEqual(1);
    expect(transcript(asGot(late ?? []))).toEqual(ownerTranscript);
    owner.ws.close();
  }, 120_000);
});
