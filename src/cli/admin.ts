/**
 * The admin CLI: the operators' dashboard. It opens the same database as the service
 * (PARLEY_DATA_DIR or DATABASE_URL), applies migrations, and works through the same
 * services. `npm run -s admin -- <command> --help` describes each command.
 */
import { Command, Option } from 'commander';
import { buildApp, type ParleyApp } from '../app.js';
import { InProcessBus } from '../bus/in-process.js';
import { ConfigError, loadConfig } from '../config.js';
import type { KeySettingsInput } from '../keys/service.js';
import type { KeyRow } from '../keys/store.js';
import type { PlanMode } from '../plans/service.js';
import { AppError } from '../platform/errors/app-error.js';
import { createLogger } from '../platform/logging.js';
import { fromMilli } from '../store/columns.js';
import { registerBillingCommands } from './admin/billing-commands.js';
import { type AdminIo, isoOrNull, nullable, numberOption, runCommand, STDIO } from './admin/run.js';
import { registerWebhookCommands } from './admin/webhook-commands.js';

interface AdminContext {
  app: ParleyApp;
  close(): Promise<void>;
}

async function open(): Promise<AdminContext> {
  const config = loadConfig();
  // Only the services: no routes are served and no jobs are worked from the CLI.
  // Its own in-process bus without REDIS_URL: a one-shot command serves no role that other
  // processes wait to hear from (what it changes is in the database).
  const app = await buildApp(
    { ...config, platform: { ...config.platform, roles: ['api'] } },
    { logger: createLogger('silent'), bus: config.platform.redisUrl ? undefined : new InProcessBus() },
  );
  return { app, close: () => app.close() };
}

/** A key's settings as the CLI shows them (never the key or the secret). */
function keyView(k: KeyRow) {
  return {
    key_id: k.id,
    account_id: k.account_id,
    name: k.name,
    key_prefix: `svc_${k.key_prefix}…`,
    expires_at: k.expires_at,
    monthly_spend_limit: k.monthly_spend_limit_milli === null ? null : fromMilli(k.monthly_spend_limit_milli),
    max_concurrent_sessions: k.max_concurrent_sessions,
    allow_account_pool: k.allow_account_pool === 1,
    ip_rules: k.ip_rules === null ? null : (JSON.parse(k.ip_rules) as string[]),
    webhook_url: k.webhook_url,
    disabled: k.disabled === 1,
    created_at: k.created_at,
  };
}

interface SettingsFlags {
  name?: string;
  expires?: string;
  monthlyLimit?: string;
  maxSessions?: string;
  accountPool?: boolean;
  ipRules?: string;
  webhookUrl?: string;
}

function settingsFrom(o: SettingsFlags): KeySettingsInput {
  const s: KeySettingsInput = {};
  if (o.name !== undefined) s.name = o.name;
  const expires = nullable(o.expires);
  if (expires !== undefined) s.expiresAt = expires;
  const limit = nullable(o.monthlyLimit);
  if (limit !== undefined) s.monthlySpendLimit = limit === null ? null : numberOption(limit, '--monthly-limit')!;
  const sessions = nullable(o.maxSessions);
  if (sessions !== undefined) s.maxConcurrentSessions = sessions === null ? null : numberOption(sessions, '--max-sessions')!;
  if (o.accountPool !== undefined) s.allowAccountPool = o.accountPool;
  const ips = nullable(o.ipRules);
  if (ips !== undefined)
    s.ipRules =
      ips === null
        ? null
        : ips
            .split(',')
            .map((r) => r.trim())
            .filter(Boolean);
  const url = nullable(o.webhookUrl);
  if (url !== undefined) s.webhookUrl = url;
  return s;
}

function settingsOptions(cmd: Command): Command {
  return cmd
    .option('--name <name>', 'key name (1-100 characters)')
    .option('--expires <iso>', 'expiry (ISO 8601); "none" for never')
    .option('--monthly-limit <points>', 'monthly spend limit in points (calendar month, UTC); "none" for no limit')
    .option('--max-sessions <n>', 'max concurrent live sessions of this key; "none" for no limit')
    .addOption(new Option('--account-pool', 'allow drawing on account credit (default)'))
    .addOption(new Option('--no-account-pool', "draw only on the key's dedicated allotment"))
    .option('--ip-rules <cidrs>', 'comma-separated CIDR blocks or addresses (IPv4/IPv6); "none" for unrestricted')
    .option('--webhook-url <url>', 'key-level webhook URL (verified before it is saved); "none" to remove')
    .option('--json', 'print one JSON object');
}

export function buildProgram(io: AdminIo = STDIO, opener: () => Promise<AdminContext> = open): Command {
  const program = new Command('admin').description('Parley administration: accounts, API keys, credit and plans.').showHelpAfterError();
  const run = (json: boolean | undefined, fn: (app: ParleyApp) => Promise<{ result: Record<string, unknown>; text: string }>) =>
    runCommand(opener, io, !!json, (ctx) => fn(ctx.app));

  settingsOptions(
    program
      .command('create-key')
      .description('Create an API key (and a new account unless --account is given). The key and webhook secret are shown only now.')
      .option('--account <id>', 'existing account id')
      .option('--credit <points>', 'grant this much account credit (never expires)')
      .option('--plan <mode>', 'set the account plan: credit | unlimited | unlimited-plan'),
  ).action(async (o: SettingsFlags & { account?: string; credit?: string; plan?: string; json?: boolean }) =>
    run(o.json, async (app) => {
      const { keys, billing, plans } = app.deps;
      const credit = numberOption(o.credit, '--credit');
      if (credit !== undefined && credit < 0) {
        throw new AppError('validation_failed', { message: `--credit must be 0 or more, got ${credit}.`, details: { field: '--credit' } });
      }
      if (o.plan !== undefined && !['credit', 'unlimited', 'unlimited-plan'].includes(o.plan)) {
        throw new AppError('validation_failed', {
          message: `--plan must be credit, unlimited or unlimited-plan, got "${o.plan}".`,
          details: { field: '--plan', valid_values: ['credit', 'unlimited', 'unlimited-plan'] },
        });
      }
      const created = await keys.createKey({ ...settingsFrom(o), accountId: o.account });
      if (credit !== undefined && credit > 0) await billing.grantCredit({ accountId: created.account_id, points: credit, pool: 'account' });
      if (o.plan) await plans.setPlan(created.account_id, o.plan as PlanMode);
      return {
        result: { ...created, credit: credit ?? 0, plan: o.plan ?? null },
        text: `API key (shown once): ${created.api_key}\nkey id: ${created.key_id}\naccount id: ${created.account_id}\nwebhook secret (shown once): ${created.webhook_secret}`,
      };
    }),
  );

  settingsOptions(
    program
      .command('update-key')
      .description("Change a key's settings; only the options given change.")
      .requiredOption('--key <id>', 'key id')
      .option('--allotment <points>', "grant this many points as the key's dedicated allotment")
      .option('--allotment-expires <iso>', 'expiry of that allotment (ISO 8601)'),
  ).action(async (o: SettingsFlags & { key: string; allotment?: string; allotmentExpires?: string; json?: boolean }) =>
    run(o.json, async (app) => {
      // Every option is parsed before anything is saved.
      const settings = settingsFrom(o);
      const allotment = numberOption(o.allotment, '--allotment');
      if (allotment !== undefined && allotment <= 0) {
        throw new AppError('validation_failed', {
          message: `--allotment must be more than 0, got ${allotment}.`,
          details: { field: '--allotment' },
        });
      }
      const allotmentExpires = o.allotmentExpires === undefined ? null : isoOrNull(o.allotmentExpires, '--allotment-expires');
      const row = await app.deps.keys.updateKey(o.key, settings);
      if (allotment !== undefined) {
        await app.deps.billing.grantCredit({
          accountId: row.account_id,
          keyId: row.id,
          pool: 'key',
          points: allotment,
          expiresAt: allotmentExpires,
        });
      }
      return { result: keyView(row), text: `updated key ${row.id}` };
    }),
  );

  program
    .command('list-keys')
    .description('List keys (not deleted), optionally of one account.')
    .option('--account <id>', 'account id')
    .option('--json', 'print one JSON object')
    .action(async (o: { account?: string; json?: boolean }) =>
      run(o.json, async (app) => {
        const rows = (await app.deps.keys.listKeys(o.account)).map(keyView);
        const text = rows.length
          ? rows
              .map((k) => `${k.key_id}  ${k.key_prefix}  ${k.name}  account ${k.account_id}${k.disabled ? '  (disabled)' : ''}`)
              .join('\n')
          : 'no keys';
        return { result: { keys: rows }, text };
      }),
    );

  program
    .command('disable-key')
    .description('Disable a key (auth_key_disabled from the next request); --enable turns it back on.')
    .requiredOption('--key <id>', 'key id')
    .option('--enable', 'enable instead')
    .option('--json', 'print one JSON object')
    .action(async (o: { key: string; enable?: boolean; json?: boolean }) =>
      run(o.json, async (app) => {
        const row = await app.deps.keys.updateKey(o.key, { disabled: !o.enable });
        return { result: keyView(row), text: `${o.enable ? 'enabled' : 'disabled'} key ${row.id}` };
      }),
    );

  program
    .command('delete-key')
    .description('Delete a key: it stops authenticating at once and gets no more notifications.')
    .requiredOption('--key <id>', 'key id')
    .option('--json', 'print one JSON object')
    .action(async (o: { key: string; json?: boolean }) =>
      run(o.json, async (app) => {
        await app.deps.keys.deleteKey(o.key);
        return { result: { key_id: o.key, deleted: true }, text: `deleted key ${o.key}` };
      }),
    );

  program
    .command('block-account')
    .description('Block an account (auth_account_blocked for all its keys); --unblock lifts it.')
    .requiredOption('--account <id>', 'account id')
    .option('--unblock', 'unblock instead')
    .option('--json', 'print one JSON object')
    .action(async (o: { account: string; unblock?: boolean; json?: boolean }) =>
      run(o.json, async (app) => {
        await app.deps.keys.setAccountFlags(o.account, { blocked: !o.unblock });
        return {
          result: { account_id: o.account, blocked: !o.unblock },
          text: `${o.unblock ? 'unblocked' : 'blocked'} account ${o.account}`,
        };
      }),
    );

  program
    .command('disable-user')
    .description('Disable the user of an account (auth_user_disabled); --enable turns it back on.')
    .requiredOption('--account <id>', 'account id')
    .option('--enable', 'enable instead')
    .option('--json', 'print one JSON object')
    .action(async (o: { account: string; enable?: boolean; json?: boolean }) =>
      run(o.json, async (app) => {
        await app.deps.keys.setAccountFlags(o.account, { userDisabled: !o.enable });
        return {
          result: { account_id: o.account, user_disabled: !o.enable },
          text: `${o.enable ? 'enabled' : 'disabled'} user of account ${o.account}`,
        };
      }),
    );

  registerBillingCommands(
    program,
    async () => {
      const ctx = await opener();
      const { keys } = ctx.app.deps;
      return {
        billing: ctx.app.deps.billing,
        plans: ctx.app.deps.plans,
        close: ctx.close,
        // Billing accepts any id; the CLI refuses typos before anything is granted or changed.
        async checkAccount(accountId: string) {
          if (!(await keys.store.findAccount(accountId))) {
            throw new AppError('validation_failed', { message: `No account ${accountId}.`, details: { field: '--account' } });
          }
        },
        async checkKey(keyId: string, accountId: string) {
          const key = await keys.store.getKey(keyId);
          if (!key || key.account_id !== accountId) {
            throw new AppError('validation_failed', { message: `No key ${keyId} in account ${accountId}.`, details: { field: '--key' } });
          }
        },
      };
    },
    io,
  );

  registerWebhookCommands(
    program,
    async () => {
      const ctx = await opener();
      return { webhooks: ctx.app.deps.webhooks, close: ctx.close };
    },
    io,
  );

  return program;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  buildProgram()
    .parseAsync(process.argv)
    .catch((err: unknown) => {
      if (err instanceof ConfigError) process.stderr.write(`${err.message}\n`);
      else process.stderr.write(`admin: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    });
}
