/**
 * Builds billing, plans, the limits calculator and tickets from the app's configuration,
 * backends and the keys feature's policies (src/app.ts registers the ticket and account
 * routes over them).
 */
import type { Logger } from 'pino';
import type { EventBus } from '../bus/types.js';
import type { Config } from '../config.js';
import { LimitsCalculator } from '../plans/limits.js';
import { PlanService } from '../plans/service.js';
import type { ChangeVersions } from '../store/change-feed.js';
import type { Database } from '../store/database.js';
import { createTicketService, type TicketService } from '../tickets/service.js';
import type { CreditNotices } from './events.js';
import type { KeyPolicySource } from './key-policy.js';
import { BillingReadCache } from './read-cache.js';
import { BillingService } from './service.js';

export interface BillingModule {
  plans: PlanService;
  billing: BillingService;
  limits: LimitsCalculator;
  tickets: TicketService;
}

export function createBillingModule(d: {
  config: Config;
  database: Database;
  bus: EventBus;
  logger: Logger;
  now?: () => Date;
  /** The keys feature: each key's account-pool access, monthly spend limit and concurrency cap. */
  keyPolicies: KeyPolicySource;
  /** Where credit crossings are written durably (the webhooks feature's outbox). */
  notices?: CreditNotices;
  /** PostgreSQL: changes heard from every process (src/store/change-feed.ts). */
  changes?: ChangeVersions;
  /** Metrics: points charged by usage type. */
  onCharged?: (usageType: string, points: number) => void;
}): BillingModule {
  const now = d.now ?? (() => new Date());
  // Billing reads in memory behind the billing epoch (read-cache.ts): on SQLite read by the
  // cache, on PostgreSQL the change feed's version (or, while it does not listen, the epoch
  // read by each request's key lookup). A plan change by this process drops the
  // epochs read in this turn (SQLite).
  const readCache = d.config.platform.keyCache ? new BillingReadCache(d.database.sqlite, d.changes) : undefined;
  const plans = new PlanService(d.database, { catalogue: d.config.plans.catalogue, now, afterWrite: () => readCache?.written() });
  const billing = new BillingService({
    database: d.database,
    plans,
    bus: d.bus,
    keyPolicies: d.keyPolicies,
    prices: d.config.billing,
    lowThreshold: d.config.billing.lowThreshold,
    now,
    logger: d.logger.child({ component: 'billing' }),
    notices: d.notices,
    onCharged: d.onCharged,
    readCache,
  });
  const limits = new LimitsCalculator({
    minutes: billing.store,
    sessions: billing.store,
    timeZone: d.config.platform.timeZone,
    rollingWindowDays: d.config.plans.rollingWindowDays,
  });
  const tickets = createTicketService({ database: d.database, billing, plans, limits, now });
  return { plans, billing, limits, tickets };
}
