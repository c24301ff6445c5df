import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { InProcessBus } from '../../src/bus/in-process.js';
import { RedisBus } from '../../src/bus/redis.js';
import type { EventBus } from '../../src/bus/types.js';
import { createLogger } from '../../src/platform/logging.js';
import { testRedisUrl } from '../support/services.js';

const redisUrl = testRedisUrl();
const logger = createLogger('silent');

type Factory = { name: string; make: (prefix: string) => Promise<EventBus> };
const factories: Factory[] = [{ name: 'in-process', make: async () => new InProcessBus() }];
if (redisUrl) {
  factories.push({
    name: 'redis',
    make: async (prefix) => {
      const bus = new RedisBus(redisUrl, logger, prefix);
      await bus.ready();
      return bus;
    },
  });
}

function collect(bus: EventBus, topic: string): unknown[] {
  const got: unknown[] = [];
  bus.subscribe(topic, (m) => got.push(m));
  return got;
}

async function until(cond: () => boolean, ms = 2000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe.each(factories)('event bus: $name', ({ make }) => {
  const open: EventBus[] = [];
  afterEach(async () => {
    for (const b of open.splice(0)) await b.close();
  });
  const bus = async (prefix: string) => {
    const b = await make(prefix);
    open.push(b);
    return b;
  };

  it('delivers to every subscriber of a topic, in publish order, as JSON copies', async () => {
    const b = await bus(`t:${randomUUID()}:`);
    const a1 = collect(b, 'credit.low');
    const a2 = collect(b, 'credit.low');
    const other = collect(b, 'credit.exhausted');
    await new Promise((r) => setTimeout(r, 50)); // subscription round trip (Redis)
    const msg = { account_id: 'a', balance: 12.5, when: new Date(0) };
    await b.publish('credit.low', msg);
    await b.publish('credit.low', { n: 2 });
    await until(() => a1.length === 2 && a2.length === 2);
    expect(a1).toEqual([{ account_id: 'a', balance: 12.5, when: '1970-01-01T00:00:00.000Z' }, { n: 2 }]);
    expect(other).toEqual([]);
  });

  it('stops delivering after unsubscribe', async () => {
    const b = await bus(`t:${randomUUID()}:`);
    const got: unknown[] = [];
    const off = b.subscribe('x', (m) => got.push(m));
    await new Promise((r) => setTimeout(r, 50));
    await b.publish('x', 1);
    await until(() => got.length === 1);
    off();
    await new Promise((r) => setTimeout(r, 50));
    await b.publish('x', 2);
    await new Promise((r) => setTimeout(r, 100));
    expect(got).toEqual([1]);
  });
});

describe.skipIf(!redisUrl)('event bus across processes (Redis)', () => {
  it('a message published by one node reaches subscribers on another', async () => {
    const prefix = `t:${randomUUID()}:`;
    const a = new RedisBus(redisUrl!, logger, prefix);
    const b = new RedisBus(redisUrl!, logger, prefix);
    try {
      await Promise.all([a.ready(), b.ready()]);
      const got = collect(b, 'task.1.speakers');
      await new Promise((r) => setTimeout(r, 50));
      await a.publish('task.1.speakers', { speaker_id: '1', new_label: 'Ana' });
      await until(() => got.length === 1);
      expect(got).toEqual([{ speaker_id: '1', new_label: 'Ana' }]);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe.skipIf(!redisUrl)('composition root', () => {
  it('REDIS_URL selects the Redis bus and rate limiter; two app processes share events', async () => {
    const { startTestApp } = await import('../support/app.js');
    const a = await startTestApp({ env: { REDIS_URL: redisUrl! } });
    const b = await startTestApp({ env: { REDIS_URL: redisUrl! } });
    try {
      expect(a.app.deps.bus).toBeInstanceOf(RedisBus);
      const topic = `test.${randomUUID()}`;
      const got = collect(b.app.deps.bus, topic);
      await new Promise((r) => setTimeout(r, 50));
      await a.app.deps.bus.publish(topic, { hello: 'world' });
      await until(() => got.length === 1);
      expect(got).toEqual([{ hello: 'world' }]);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
