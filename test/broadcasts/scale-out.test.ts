/**
 * A broadcast across two app instances sharing only PostgreSQL and Redis: the host streams
 * jfk.flac to one instance, a viewer on the other receives its captions in order, and
 * max_viewers holds across both (a viewer on the host's instance waits in the queue until the
 * first viewer leaves). Spoken translations (tts_ready) are made once on the host's instance
 * and reach a tts viewer on the other; the instance without a synthesizer still tells its viewers
 * which languages they can listen to (tts_languages, published by the hosting instance). A
 * drain of the hosting instance freezes the broadcast instead of ending it: viewers on the other
 * instance stay connected, and the host goes on from there.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EngineRegistry } from '../../src/engines/registry.js';
import type { AnyEngine } from '../../src/engines/types.js';
import { connect, jfkPcm, liveEngines, type Msg, startLiveApp, streamPcm, vt } from '../realtime/support.js';
import { api, createPgSchema, dropPgSchema, type TestApp } from '../support/app.js';
import { testRedisUrl } from '../support/services.js';
import { newBroadcast, openViewer, ttsEngines } from './support.js';

const redisUrl = testRedisUrl();
const pg = Boolean(process.env.DATABASE_URL);

describe.skipIf(!redisUrl || !pg)('broadcast fan-out across two instances (PostgreSQL + Redis)', () => {
  const cleanup: (() => unknown)[] = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
  });

  it('captions from the host on one instance reach a viewer on the other in order; seats count across both', async () => {
    const pgSchema = await createPgSchema();
    cleanup.push(() => dropPgSchema(pgSchema));
    const dirs = [mkdtempSync(join(tmpdir(), 'parley-bca-')), mkdtempSync(join(tmpdir(), 'parley-bcb-'))];
    cleanup.push(() => {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    });
    // The host's instance synthesizes (eSpeak NG beside the live engines); the viewers' instance has no synthesizer.
    const live = await liveEngines();
    const withTts = EngineRegistry.fromEngines([
      ...(['streaming-stt', 'translator', 'summarizer'] as const).flatMap((k) => live.enginesOf(k) as AnyEngine[]),
      ...(await ttsEngines()).enginesOf('tts'),
    ]);
    const open = (dir: string, roles: string, engines?: EngineRegistry): Promise<TestApp> =>
      startLiveApp('postgres', { engines, env: { PARLEY_ROLES: roles, REDIS_URL: redisUrl! }, reuse: { dataDir: dir, pgSchema } });
    const a = await open(dirs[0]!, 'api,worker');
    cleanup.push(() => a.close());
    const b = await open(dirs[1]!, 'api,realtime', withTts);
    cleanup.push(() => b.close());

    const created = await a.app.deps.keys.createKey({});
    await a.app.deps.billing.grantCredit({ accountId: created.account_id, points: 50, pool: 'account' });
    const key = created.api_key;
    const channel = await newBroadcast(a, key, { transcription_languages: ['en'], translation_languages: ['es'], max_viewers: 1 });

    // Not on air before the host starts: no viewer stream on either instance.
    expect((await openViewer(b, channel.token)).body.data.details).toMatchObject({ reason: 'not_started' });
    const ticket = (await api(a.url, 'POST', '/api/v1/auth/ticket', { key })).body.data.ticket as string;
    const host = await connect(b, [`ticket.${ticket}`]);
    host.send(vt('start', { type: 'broadcast', broadcast_token: channel.token, audio_format: 'pcm' }));
    const started = await host.next((m: Msg) => m.data?.action === 'session_started' || m.type === 'error', 20_000);
    expect(started.data).toMatchObject({ action: 'session_started', phase: 'live', viewer_count: 0, queue_count: 0 });

    const onA = await openViewer(a, channel.token, '?tts=true');
    await onA.next((e) => e.event === 'connected');
    const onB = await openViewer(b, channel.token);
    expect((await onB.next((e) => e.event === 'queued')).data.position).toBe(1);
    // Seats are counted across instances: the owner's view on either says one seated, one waiting.
    expect((await api(b.url, 'GET', `/api/v1/broadcasts/${channel.id}`, { key })).body.data).toMatchObject({
      viewer_count: 1,
      queue_count: 1,
    });
    // The languages viewers can listen to are the hosting instance's (it synthesizes), also on the
    // instance without a synthesizer: its public view and its viewers' connected event say so.
    const view = await api(a.url, 'GET', `/api/v1/viewer/broadcasts/${channel.token}`);
    expect(view.body.data).toMatchObject({ is_live: true, tts_languages: ['es'] });
    const third = await openViewer(a, channel.token);
    expect((await third.next((e) => e.event === 'connected')).data).toMatchObject({ phase: 'live', tts_languages: ['es'] });
    third.close();
    await streamPcm(host, jfkPcm(), 4);
    await onA.next((e) => e.event === 'translation' && e.data.is_final, 30_000);
    const finals = onA.events.filter((e) => e.event === 'origin' && e.data.is_final).map((e) => e.data.sid as number);
    expect(finals.length).toBeGreaterThan(0);
    expect([...finals].sort((x, y) => x - y)).toEqual(finals);
    // The audio of a final translation, made on the host's instance, reaches the viewer on the other.
    const spoken = await onA.next((e) => e.event === 'tts_ready', 30_000);
    expect(spoken.data).toMatchObject({ language: 'es', format: 'mp3', audio: expect.any(String) });
    // The waiting viewer on the host's instance saw no captions.
    expect(onB.events.some((e) => e.event === 'origin' || e.event === 'translation')).toBe(false);

    onA.close();
    await onB.next((e) => e.event === 'admitted', 10_000);
    host.send(vt('stop'));
    await onB.next((e) => e.event === 'ended', 60_000);
    await host.next((m) => m.data?.action === 'task_complete', 60_000);
    host.ws.close();
  }, 180_000);

  it('a drain on the host instance: the host is told service_shutdown, viewers elsewhere stay (host_disconnected), the host goes on from another instance', async () => {
    const pgSchema = await createPgSchema();
    cleanup.push(() => dropPgSchema(pgSchema));
    const dirs = [mkdtempSync(join(tmpdir(), 'parley-bcc-')), mkdtempSync(join(tmpdir(), 'parley-bcd-'))];
    cleanup.push(() => {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    });
    const env = { REDIS_URL: redisUrl!, PARLEY_WS_DRAIN_SECONDS: '1' };
    // The viewers' instance can host too (where the host goes after the drain); the other drains.
    const a = await startLiveApp('postgres', {
      env: { ...env, PARLEY_ROLES: 'api,realtime,worker' },
      reuse: { dataDir: dirs[0]!, pgSchema },
    });
    cleanup.push(() => a.close());
    const b = await startLiveApp('postgres', { env: { ...env, PARLEY_ROLES: 'api,realtime' }, reuse: { dataDir: dirs[1]!, pgSchema } });
    let bClosed = false;
    cleanup.push(() => (bClosed ? undefined : b.close()));

    const created = await a.app.deps.keys.createKey({});
    await a.app.deps.billing.grantCredit({ accountId: created.account_id, points: 50, pool: 'account' });
    const key = created.api_key;
    const channel = await newBroadcast(a, key, { transcription_languages: ['en'], translation_languages: ['es'] });
    const hostOn = async (app: TestApp) => {
      const ticket = (await api(a.url, 'POST', '/api/v1/auth/ticket', { key })).body.data.ticket as string;
      const host = await connect(app, [`ticket.${ticket}`]);
      host.send(vt('start', { type: 'broadcast', broadcast_token: channel.token, audio_format: 'pcm' }));
      const started = await host.next((m: Msg) => m.data?.action === 'session_started' || m.type === 'error', 20_000);
      expect(started.data).toMatchObject({ action: 'session_started', phase: 'live' });
      return host;
    };
    const first = await hostOn(b);
    const watcher = await openViewer(a, channel.token);
    expect((await watcher.next((e) => e.event === 'connected')).data.phase).toBe('live');

    // The host's instance shuts down: its host is told; at the drain deadline the broadcast freezes, it does not end.
    const closing = b.app.close().then(() => {
      bClosed = true;
    });
    expect((await first.next((m) => m.type === 'error' && m.data.error_code === 'service_shutdown', 10_000)).data.severity).toBe('warning');
    await watcher.next((e) => e.event === 'host_disconnected', 30_000);
    await closing;
    expect((await first.closed).code).toBe(1001);
    expect(watcher.events.some((e) => e.event === 'ended')).toBe(false);
    expect((await api(a.url, 'GET', `/api/v1/broadcasts/${channel.id}`, { key })).body.data).toMatchObject({ status: 'active' });

    // The host starts again on the other instance: the same viewer connection sees it come back and live captions go on.
    const second = await hostOn(a);
    expect((await watcher.next((e) => e.event === 'host_reconnected', 10_000)).data).toMatchObject({ resumed: true, phase: 'live' });
    await streamPcm(second, jfkPcm().subarray(0, 32_000 * 4), 4);
    await watcher.next((e) => e.event === 'origin', 30_000);
    second.send(vt('stop'));
    await watcher.next((e) => e.event === 'ended', 60_000);
    await second.next((m) => m.data?.action === 'task_complete', 60_000);
    second.ws.close();
    watcher.close();
  }, 180_000);
});
