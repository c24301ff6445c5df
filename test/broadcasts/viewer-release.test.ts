/**
 * A viewer's stream ends cleanly and leaves nothing behind (issue 30). The stream is written on
 * a hijacked reply, Fastify's public way to answer on the raw response, so the request's
 * onResponse hooks (its log line, parley_http_requests_total) run when the stream ends, as
 * Fastify documents for hijacked replies, and no framework internal is called. Once a viewer
 * is gone (its broadcast ended, or it left), its seat, its room place and its open-stream
 * entry go, and its response (with the framework's request and reply that hold it) can be
 * garbage-collected.
 */
import type { ServerResponse } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VIEWER_REPLAY_RETAIN, viewerTopic } from '../../src/broadcasts/viewer-events.js';
import { api, startTestApp, type TestApp } from '../support/app.js';
import { newBroadcast, onAir, openViewer } from './support.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const ROUTE = '/broadcast/:token/text';

async function eventually(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`not so after 5 s: ${what}`);
}

describe('a viewer stream ends cleanly and leaves nothing behind (sqlite)', () => {
  let t: TestApp;
  let key: string;
  /** Every viewer response the server made (weakly: the test must not keep them alive). */
  const responses: WeakRef<ServerResponse>[] = [];
  beforeAll(async () => {
    t = await startTestApp({
      backend: 'sqlite',
      env: { PARLEY_BROADCAST_VIEWER_LIMIT: '50', PARLEY_BROADCAST_SOURCE_SEAT_PERCENT: '100' },
    });
    key = (await t.app.deps.keys.createKey({ name: 'release' })).api_key;
    t.app.http.server.prependListener('request', (req, res) => {
      if (req.url?.startsWith('/broadcast/')) responses.push(new WeakRef(res));
    });
  }, 60_000);
  afterAll(() => t?.close());

  const streamsCounted = async () => {
    const values = (await t.app.deps.metrics.httpRequests.get()).values;
    return values.find((v) => v.labels.route === ROUTE && String(v.labels.status) === '200')?.value ?? 0;
  };
  const seated = async (id: string) => (await api(t.url, 'GET', `/api/v1/broadcasts/${id}`, { key })).body.data.viewer_count as number;
  const openStreams = () => t.app.http.sseStreams?.size ?? 0;
  /** Every viewer response made so far has been collected. */
  const allCollected = async () => {
    for (let i = 0; i < 5; i++) {
      gc();
      await new Promise((r) => setImmediate(r));
    }
    return responses.every((r) => r.deref() === undefined);
  };

  it('a broadcast that ends: the viewer gets ended, its stream closes, the request is counted then, and nothing is kept', async () => {
    const b = await newBroadcast(t, key);
    await onAir(t, b.id, 'live');
    const counted = await streamsCounted();
    const streams = openStreams();
    const v = await openViewer(t, b.token);
    await v.next((e) => e.event === 'connected');
    expect(await seated(b.id)).toBe(1);
    expect(openStreams()).toBe(streams + 1);
    // Still open: the request is not answered yet (its hooks run when the stream ends).
    expect(await streamsCounted()).toBe(counted);

    await t.app.deps.bus.publish(viewerTopic(b.id), { event: 'ended', data: {} }, { retain: VIEWER_REPLAY_RETAIN });
    const ended = await v.next((e) => e.event === 'ended');
    expect(ended.data.message).toEqual(expect.any(String));
    await v.ended; // the server ended the response: the client's read is done
    await eventually(async () => (await streamsCounted()) === counted + 1, 'the ended stream is counted once');
    await eventually(async () => (await seated(b.id)) === 0, 'the seat is released');
    expect(openStreams()).toBe(streams);
    await eventually(allCollected, 'the ended viewer response is collected');
  });

  it('a viewer that leaves: its seat and room place go, and its response is collected', async () => {
    const b = await newBroadcast(t, key);
    await onAir(t, b.id, 'live');
    const streams = openStreams();
    const viewers = await Promise.all([openViewer(t, b.token), openViewer(t, b.token, '?lang=es')]);
    for (const v of viewers) await v.next((e) => e.event === 'connected');
    expect(await seated(b.id)).toBe(2);
    for (const v of viewers) v.close();
    await eventually(async () => (await seated(b.id)) === 0, 'both seats are released');
    await eventually(() => openStreams() === streams, 'both streams are closed on the server');
    await eventually(allCollected, 'the responses of viewers who left are collected');
    // The broadcast still admits viewers (a room is made again), and their captions flow.
    const again = await openViewer(t, b.token);
    await again.next((e) => e.event === 'connected');
    await t.app.deps.bus.publish(viewerTopic(b.id), {
      event: 'origin',
      data: { sid: 1, text: 'back', speaker_label: null, start_time: '00:01', is_final: true },
    });
    expect((await again.next((e) => e.event === 'origin')).data.text).toBe('back');
    again.close();
  });
});
