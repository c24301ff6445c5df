/** Prometheus metrics (issue 19): where /metrics is served and who may read it. */
import { defineSection, SettingError, settings } from '../platform/config/settings.js';

export const metricsSettings = defineSection({
  token: settings.optionalString(
    'PARLEY_METRICS_TOKEN',
    'Bearer token a scraper must send (Authorization: Bearer <token>) to read /metrics on the main port. Unset and PARLEY_METRICS_LISTEN unset: /metrics is not served.',
  ),
  listen: settings.custom(
    'PARLEY_METRICS_LISTEN',
    'host:port of a separate listener that serves only /metrics (e.g. 127.0.0.1:9464, reachable from the scraper only); when set, the main port does not serve /metrics. PARLEY_METRICS_TOKEN, when set, applies there too.',
    null as { host: string; port: number } | null,
    (raw) => {
      const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(raw.trim());
      const port = m ? Number(m[3]) : Number.NaN;
      if (!m || port > 65535) throw new SettingError(`PARLEY_METRICS_LISTEN must be host:port (e.g. 127.0.0.1:9464), got "${raw}"`);
      return { host: (m[1] ?? m[2]) as string, port };
    },
  ),
});
