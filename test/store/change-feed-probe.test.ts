/**
 * The change feed's probe (src/store/change-feed.ts): a listening connection is trusted only
 * while the feed hears its own probe notices back. Two ways of not hearing, made by a TCP proxy
 * between the feed and the real PostgreSQL:
 * - a connection whose notices never come back, as behind a pooler in transaction mode (LISTEN
 *   and NOTIFY go to different server connections): the proxy drops every NotificationResponse;
 * - a peer gone from the network without an error: the proxy stops passing bytes either way.
 */
import { createServer, type Server, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { PostgresChangeFeed } from '../../src/store/change-feed.js';
import { backends } from '../support/app.js';
import { until } from '../support/until.js';

const PG_URL = process.env.DATABASE_URL;

/** A proxy to PostgreSQL that can drop the server's notices and freeze its open connections. */
async function pgProxy(target: URL) {
  const state = { dropNotices: false };
  const open: Socket[] = [];
  const server: Server = createServer((client) => {
    const upstream = new Socket();
    open.push(client, upstream);
    upstream.connect(Number(target.port || 5432), target.hostname);
    const fail = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', fail).on('close', fail);
    upstream.on('error', fail).on('close', fail);
    client.on('data', (d: Buffer) => upstream.write(d));
    // The server's messages: a type byte, then an int32 length that counts itself.
    let pending = Buffer.alloc(0);
    upstream.on('data', (d: Buffer) => {
      pending = Buffer.concat([pending, d]);
      while (pending.length >= 5) {
        const size = 1 + pending.readInt32BE(1);
        if (pending.length < size) break;
        const message = pending.subarray(0, size);
        pending = pending.subarray(size);
        if (!(state.dropNotices && message[0] === 0x41)) client.write(message); // 'A': NotificationResponse
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as { port: number }).port);
  return {
    url: url.toString(),
    state,
    /** Connections open so far stay frozen; new ones pass again. */
    freezeOpen() {
      for (const s of open) {
        s.removeAllListeners('data');
        s.pause();
      }
    },
    close: async () => {
      for (const s of open) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

describe.runIf(backends().includes('postgres'))('PostgreSQL change feed: the probe', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  async function feedThrough(proxy: Awaited<ReturnType<typeof pgProxy>>) {
    const warnings: string[] = [];
    const logger = { warn: (o: object, msg: string) => warnings.push(`${msg} ${JSON.stringify(o)}`), info: () => {} };
    const feed = new PostgresChangeFeed({ databaseUrl: proxy.url, logger });
    cleanup.push(() => feed.close());
    return { feed, warnings };
  }

  it('a connection that listens but never hears its probe is never trusted; once notices come through it is', async () => {
    const proxy = await pgProxy(new URL(PG_URL!));
    cleanup.push(proxy.close);
    proxy.state.dropNotices = true;
    const { feed, warnings } = await feedThrough(proxy);
    // The probe waits 2 s; by 3.5 s it has failed and the feed is trying again, still untrusted.
    await until(() => warnings.some((w) => w.includes('the probe notice was not heard back')), 5_000);
    expect(feed.auth()).toBeUndefined();
    expect(feed.billing('an-account')).toBeUndefined();
    proxy.state.dropNotices = false;
    await until(() => feed.auth() !== undefined, 10_000);
    expect(feed.billing('an-account')).toBeDefined();
  }, 20_000);

  it('a listening connection that goes silent (a peer gone without an error) is dropped by the next probe, then made again', async () => {
    const proxy = await pgProxy(new URL(PG_URL!));
    cleanup.push(proxy.close);
    const { feed, warnings } = await feedThrough(proxy);
    await feed.ready();
    const trusted = feed.auth();
    expect(trusted).toBeDefined();
    proxy.freezeOpen();
    // A probe every 5 s, heard within 2 s: untrusted within 7 s of going silent.
    await until(() => feed.auth() === undefined, 9_000);
    expect(warnings.join('\n')).toContain('the probe notice was not heard back');
    await until(() => feed.auth() !== undefined, 10_000);
    expect(feed.auth()).toBeGreaterThan(trusted!);
  }, 30_000);
});
