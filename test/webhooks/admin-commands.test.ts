/** resend-webhook and show-webhook against a running app (the command file as src/cli/admin.ts registers it). */
import { Command } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import { registerWebhookCommands } from '../../src/cli/admin/webhook-commands.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { until } from '../support/until.js';
import { startReceiver } from './receiver.js';

describe('webhook admin commands', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  async function cli(t: TestApp, args: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const program = new Command().exitOverride();
    registerWebhookCommands(program, async () => ({ webhooks: t.app.deps.webhooks, close: async () => {} }), {
      out: (s) => out.push(s),
      err: (s) => err.push(s),
    });
    process.exitCode = undefined;
    await program.parseAsync(['node', 'admin', ...args]);
    const code = process.exitCode ?? 0;
    process.exitCode = undefined;
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  it('shows the attempt log and re-sends a failed delivery with the same delivery_id', async () => {
    let fail = true;
    const rx = await startReceiver((r, res) => res.writeHead(r.json.event === 'webhook.verify' || !fail ? 200 : 503).end());
    cleanup.push(() => rx.close());
    const t = await startTestApp({ env: { PARLEY_WEBHOOK_RETRY_SCALE: '0.001' } });
    cleanup.push(() => t.close());
    const key = await t.app.deps.keys.createKey({ webhookUrl: rx.url });
    const id = await t.app.deps.webhooks.notify('import.failed', {
      accountId: key.account_id,
      keyId: key.key_id,
      data: { import_id: 'i', error_code: 'import_duration_out_of_range', error_message: 'Import failed.' },
    });
    await until(async () => (await t.app.deps.webhooks.describe(id!))?.delivery.status === 'failed', 8000, 'failed');
    const shown = await cli(t, ['show-webhook', '--delivery', id!, '--json']);
    expect(shown.code).toBe(0);
    const s = JSON.parse(shown.out);
    expect(s).toMatchObject({ delivery_id: id, event: 'import.failed', status: 'failed' });
    expect(s.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([503, 503, 503, 503, 503]);

    fail = false;
    const resent = await cli(t, ['resend-webhook', '--delivery', id!]);
    expect(resent).toMatchObject({ code: 0, out: `queued import.failed delivery ${id} for key ${key.key_id} (5 earlier attempts)` });
    await until(async () => (await t.app.deps.webhooks.describe(id!))?.delivery.status === 'delivered', 3000, 'delivered');
    const last = rx.received.at(-1)!;
    expect(last.json.delivery_id).toBe(id);

    const missing = await cli(t, ['resend-webhook', '--delivery', '00000000-0000-4000-8000-000000000000', '--json']);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.out).error.code).toBe('validation_failed');
  });
});
