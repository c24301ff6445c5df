/** Webhook delivery settings (spec "Webhooks" rules 8-9 and Limits). */
import { defineSection, settings } from '../platform/config/settings.js';

export const webhookSettings = defineSection({
  allowPrivate: settings.bool(
    'PARLEY_WEBHOOK_ALLOW_PRIVATE',
    'Allow webhooks to private, loopback and link-local addresses (tests, closed networks). Off: such targets are refused.',
    false,
  ),
  timeoutMs: settings.int('PARLEY_WEBHOOK_TIMEOUT_MS', 'Time a receiver has to answer a notification (ms).', 15_000, { min: 100 }),
  verifyTimeoutMs: settings.int(
    'PARLEY_WEBHOOK_VERIFY_TIMEOUT_MS',
    'Time a receiver has to answer webhook.verify before a key-level URL is refused (ms).',
    8_000,
    { min: 100 },
  ),
  retryScale: settings.number(
    'PARLEY_WEBHOOK_RETRY_SCALE',
    'Multiplier of the retry schedule 10, 30, 90, 270 s (tests use a small value; 1 in production).',
    1,
    { min: 0.0001, max: 100 },
  ),
  repairSeconds: settings.number(
    'PARLEY_WEBHOOK_REPAIR_SECONDS',
    'Every worker re-queues this often the pending notifications that have no live delivery job (older than this), and releases ordered ones whose predecessor was tried; also at worker start.',
    60,
    { min: 0.1, max: 86_400 },
  ),
});
