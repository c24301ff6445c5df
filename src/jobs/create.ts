/** The job queue configuration selects: BullMQ on Redis (REDIS_URL, PARLEY_JOB_QUEUE) or the database's jobs table. */
import type { Logger } from 'pino';
import type { PlatformConfig } from '../platform/config/platform-settings.js';
import { ConfigError } from '../platform/config/settings.js';
import type { Database } from '../store/database.js';
import { StoreJobQueue } from './store-queue.js';
import type { JobQueue } from './types.js';

export async function openJobQueue(
  config: { platform: PlatformConfig },
  database: Database,
  logger: Logger,
  now: () => Date,
): Promise<JobQueue> {
  const { jobQueue, redisUrl, jobLeaseMs, jobQueuePrefix } = config.platform;
  if (jobQueue === 'redis' && !redisUrl) throw new ConfigError(['PARLEY_JOB_QUEUE=redis needs REDIS_URL']);
  if (redisUrl && jobQueue !== 'database') {
    // Loaded only when configured (the embedded profile does without BullMQ).
    const { BullJobQueue } = await import('./bull-queue.js');
    return new BullJobQueue(redisUrl, database, { logger, leaseMs: jobLeaseMs, prefix: jobQueuePrefix });
  }
  return new StoreJobQueue(database, { logger, now, leaseMs: jobLeaseMs });
}
