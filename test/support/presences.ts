/**
 * The presence backends a behaviour suite runs on: in memory always, Redis when REDIS_URL is
 * set. Each gives two handles on one presence: the same object in memory, two connections (two
 * "processes") on Redis, under a prefix of their own so test runs sharing a Redis stay apart.
 */
import { randomUUID } from 'node:crypto';
import { InMemoryPresence } from '../../src/presence/in-memory.js';
import { RedisPresence } from '../../src/presence/redis.js';
import type { Presence } from '../../src/presence/types.js';
import { testRedisUrl } from './services.js';

export type PresencePairFactory = { name: string; make: () => [Presence, Presence] };

export function presencePairFactories(): PresencePairFactory[] {
  const factories: PresencePairFactory[] = [
    {
      name: 'in-memory',
      make: () => {
        const p = new InMemoryPresence();
        return [p, p];
      },
    },
  ];
  const redisUrl = testRedisUrl();
  if (redisUrl) {
    factories.push({
      name: 'redis, two connections',
      make: () => {
        const prefix = `t:presence:${randomUUID()}:`;
        return [new RedisPresence(redisUrl, prefix), new RedisPresence(redisUrl, prefix)];
      },
    });
  }
  return factories;
}
