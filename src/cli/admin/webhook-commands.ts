/**
 * Admin commands for webhooks (support's tools, spec rule 8: failed notifications are re-sent
 * only on request): `resend-webhook` queues one more attempt of a delivery (same delivery_id,
 * signed afresh), `show-webhook` prints a delivery and its attempt log. The admin CLI
 * (src/cli/admin.ts) registers them with one line:
 *   registerWebhookCommands(program, async () => { const c = await opener(); return { webhooks: c.app.deps.webhooks, close: c.close }; }, io)
 * The running service's worker sends the resend (the CLI process has no worker role).
 */
import type { Command } from 'commander';
import { AppError } from '../../platform/errors/app-error.js';
import type { WebhookService } from '../../webhooks/service.js';
import { type AdminIo, runCommand as run, STDIO } from './run.js';

export interface WebhookAdminContext {
  webhooks: WebhookService;
  close(): Promise<void>;
}

export function registerWebhookCommands(program: Command, open: () => Promise<WebhookAdminContext>, io: AdminIo = STDIO): void {
  program
    .command('resend-webhook')
    .description('Re-send a webhook notification (one more attempt, same delivery_id, signed afresh).')
    .requiredOption('--delivery <id>', 'delivery id (the X-SVC-Delivery-Id the receiver saw)')
    .option('--json', 'print one JSON object')
    .action(async (o: { delivery: string; json?: boolean }) =>
      run(open, io, !!o.json, async ({ webhooks }) => {
        const row = await webhooks.resend(o.delivery);
        return {
          result: { delivery_id: row.id, event: row.event, key_id: row.key_id, status: 'queued', previous_attempts: row.attempts },
          text: `queued ${row.event} delivery ${row.id} for key ${row.key_id} (${row.attempts} earlier attempts)`,
        };
      }),
    );

  program
    .command('show-webhook')
    .description('Show a webhook delivery and every attempt (time, status code, error, duration).')
    .requiredOption('--delivery <id>', 'delivery id')
    .option('--json', 'print one JSON object')
    .action(async (o: { delivery: string; json?: boolean }) =>
      run(open, io, !!o.json, async ({ webhooks }) => {
        const d = await webhooks.describe(o.delivery);
        if (!d) throw new AppError('validation_failed', { message: `No webhook delivery ${o.delivery}.`, details: { field: 'delivery' } });
        const attempts = d.attempts.map((a) => ({
          attempt: a.attempt,
          started_at: a.started_at,
          url: a.url,
          status_code: a.status_code,
          error: a.error,
          duration_ms: a.duration_ms,
        }));
        const lines = attempts.map(
          (a) => `  #${a.attempt} ${a.started_at} ${a.status_code ?? '-'} ${a.duration_ms} ms${a.error ? ` ${a.error}` : ''}`,
        );
        return {
          result: {
            delivery_id: d.delivery.id,
            event: d.delivery.event,
            key_id: d.delivery.key_id,
            status: d.delivery.status,
            created_at: d.delivery.created_at,
            attempts,
          },
          text: [`${d.delivery.event} ${d.delivery.id} key ${d.delivery.key_id}: ${d.delivery.status}`, ...lines].join('\n'),
        };
      }),
    );
}
