/**
 * All configuration, read once from the environment at start. Each feature owns a section
 * (its settings, defaults and docs); this file gathers them and fails with every problem
 * listed when something is wrong.
 */

import { billingSettings } from './billing/settings.js';
import { broadcastSettings } from './broadcasts/settings.js';
import { engineSettings } from './engines/settings.js';
import { importSettings } from './imports/settings.js';
import { metricsSettings } from './metrics/settings.js';
import { planSettings } from './plans/settings.js';
import { platformSettings, ROLES } from './platform/config/platform-settings.js';
import { ConfigError, readSection, type Section, type SectionValues } from './platform/config/settings.js';
import { realtimeSettings } from './realtime/settings.js';
import { storageSettings } from './storage/settings.js';
import { subtitleSettings } from './subtitles/settings.js';
import { summaryTemplateSettings } from './summary-templates/settings.js';
import { webhookSettings } from './webhooks/settings.js';

export const SECTIONS = {
  platform: platformSettings,
  storage: storageSettings,
  engines: engineSettings,
  billing: billingSettings,
  plans: planSettings,
  webhooks: webhookSettings,
  summaryTemplates: summaryTemplateSettings,
  realtime: realtimeSettings,
  imports: importSettings,
  subtitles: subtitleSettings,
  broadcasts: broadcastSettings,
  metrics: metricsSettings,
} as const satisfies Record<string, Section>;

export type Config = { [K in keyof typeof SECTIONS]: SectionValues<(typeof SECTIONS)[K]> };

export { ConfigError } from './platform/config/settings.js';

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const problems: string[] = [];
  const out: Record<string, unknown> = {};
  for (const [name, section] of Object.entries(SECTIONS)) out[name] = readSection(section, env, problems);
  if (problems.length) throw new ConfigError(problems);
  return out as Config;
}

/**
 * A process that runs only some roles works with processes running the others, and they talk
 * over the bus: force-fail reaches a live session (api -> realtime), import progress reaches
 * its stream (worker -> api), credit crossings reach the webhook worker, live session events
 * reach viewers on other nodes. The in-process bus reaches none of them, so such a process
 * needs Redis. (Durable effects, such as task webhooks, are in the database and need no bus.)
 * Returns the problem, or null.
 */
export function rolesWithoutBusProblem(config: Config): string | null {
  const roles = config.platform.roles;
  if (config.platform.redisUrl || ROLES.every((r) => roles.includes(r))) return null;
  const elsewhere = ROLES.filter((r) => !roles.includes(r)).join(', ');
  return (
    `PARLEY_ROLES=${roles.join(',')} runs part of the service: the ${elsewhere} role(s) run in other processes, which reach ` +
    'this one over the bus (force-fail of live sessions, import progress, live session streams). ' +
    `Set REDIS_URL to a Redis server every process shares, or run every role here (PARLEY_ROLES=${ROLES.join(',')}).`
  );
}

/** Every setting, for docs/configuration.md and its check. */
export function allSettings() {
  return Object.entries(SECTIONS).flatMap(([section, s]) => Object.values(s).map((setting) => ({ section, ...setting })));
}
