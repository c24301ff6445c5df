/**
 * The bus backends a behaviour suite runs on: in-process always, Redis when REDIS_URL is set.
 * Each gives two handles on one bus: the same object in-process, two connections (two
 * "nodes") on Redis, under a prefix of their own so test runs sharing a Redis stay apart.
 */
import { randomUUID } from 'node:crypto';
import { InProcessBus } from '../../src/bus/in-process.js';
import { RedisBus } from '../../src/bus/redis.js';
import type { EventBus } from '../../src/bus/types.js';
import { createLogger } from '../../src/platform/logging.js';
import { testRedisUrl } from './services.js';

export type BusPairFactory = { name: string; make: () => Promise<[EventBus, EventBus]> };

export function busPairFactories(): BusPairFactory[] {
  const factories: BusPairFactory[] = [
    {
      name: 'in-process',
      make: async () => {
        const b = new InProcessBus();
        return [b, b];
      },
    },
  ];
  const redisUrl = testRedisUrl();
  if (redisUrl) {
    const logger = createLogger('silent');
    factories.push({
      name: 'redis',
      make: async () => {
        const prefix = `t:${randomUUID()}:`;
        const a = new RedisBus(redisUrl, logger, prefix);
        const b = new RedisBus(redisUrl, logger, prefix);
        await Promise.all([a.ready(), b.ready()]);
        return [a, b];
      },
    });
  }
  return factories;
}
