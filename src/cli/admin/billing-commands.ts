/**
 * Admin commands for billing (operators' dashboard, spec "Account"): grant-credit, set-plan,
 * refund. The admin CLI (src/cli/admin.ts) registers them with one line:
 *   registerBillingCommands(program, open)
 * where `open` gives the app's billing and plan services over the configured database.
 * Each command has --help and --json (one JSON object on stdout).
 */
import type { Command } from 'commander';
import type { BillingService } from '../../billing/service.js';
import type { PlanMode, PlanService } from '../../plans/service.js';
import { AppError } from '../../platform/errors/app-error.js';
import { fromMilli } from '../../store/columns.js';
import { type AdminIo, isoOrNull, runCommand as run, STDIO } from './run.js';

export interface BillingAdminContext {
  billing: BillingService;
  plans: PlanService;
  /**
   * Optional checks the admin CLI can supply (the keys feature owns accounts and keys): throw
   * when the account does not exist, or when the key does not belong to the account. Billing
   * itself accepts any id, so without them a typo grants credit nobody can use.
   */
  checkAccount?(accountId: string): Promise<void>;
  checkKey?(keyId: string, accountId: string): Promise<void>;
  close(): Promise<void>;
}

export function registerBillingCommands(program: Command, open: () => Promise<BillingAdminContext>, io: AdminIo = STDIO): void {
  program
    .command('grant-credit')
    .description('Grant credit points to an account (account pool) or to one key (its dedicated allotment).')
    .requiredOption('--account <id>', 'account id')
    .option('--key <id>', 'key id: grant a dedicated allotment of this key instead of account credit')
    .requiredOption('--points <n>', 'points to grant (decimals allowed, > 0)')
    .option('--expires <iso>', 'expiry of the lot (ISO 8601); default never')
    .option('--json', 'print one JSON object')
    .action(async (o: { account: string; key?: string; points: string; expires?: string; json?: boolean }) =>
      run(open, io, !!o.json, async ({ billing, checkAccount, checkKey }) => {
        await checkAccount?.(o.account);
        if (o.key) await checkKey?.(o.key, o.account);
        const points = Number(o.points);
        const lot = await billing.grantLot({
          accountId: o.account,
          pool: o.key ? 'key' : 'account',
          keyId: o.key,
          points,
          expiresAt: isoOrNull(o.expires, '--expires'),
        });
        const result = {
          lot_id: lot.id,
          account_id: o.account,
          pool: lot.pool,
          key_id: lot.keyId,
          points: fromMilli(lot.grantedMilli),
          expires_at: lot.expiresAt,
          granted_at: lot.grantedAt,
        };
        return {
          result,
          text: `Granted ${result.points} points (${lot.pool} pool${lot.keyId ? ` of key ${lot.keyId}` : ''}) to account ${o.account}, expires ${lot.expiresAt ?? 'never'}.`,
        };
      }),
    );

  program
    .command('set-plan')
    .description(
      'Set the plan of an account (all its keys share it): credit, unlimited (no restrictions) or unlimited-plan (a named plan).',
    )
    .requiredOption('--account <id>', 'account id')
    .requiredOption('--plan <mode>', 'credit | unlimited | unlimited-plan')
    .option('--plan-name <name>', 'catalogue plan for unlimited-plan (default: standard)')
    .option('--expires <iso>', 'expiry of the unlimited authorization (ISO 8601); default never')
    .option('--json', 'print one JSON object')
    .action(async (o: { account: string; plan: string; planName?: string; expires?: string; json?: boolean }) =>
      run(open, io, !!o.json, async ({ plans, checkAccount }) => {
        await checkAccount?.(o.account);
        if (!['credit', 'unlimited', 'unlimited-plan'].includes(o.plan)) {
          throw new AppError('validation_failed', {
            message: `--plan must be credit, unlimited or unlimited-plan, got "${o.plan}".`,
            details: { field: '--plan' },
          });
        }
        const active = await plans.setPlan(o.account, {
          mode: o.plan as PlanMode,
          planName: o.planName ?? null,
          expiresAt: isoOrNull(o.expires, '--expires'),
        });
        const result = {
          account_id: o.account,
          mode: active.mode,
          plan_name: active.mode === 'unlimited-plan' ? active.plan.name : null,
          expires_at: active.mode === 'credit' ? null : active.expiresAt,
        };
        return {
          result,
          text: `Account ${o.account} is now on ${result.mode}${result.plan_name ? ` (${result.plan_name})` : ''}, expires ${result.expires_at ?? 'never'}.`,
        };
      }),
    );

  program
    .command('refund')
    .description('Refund a usage record in full (reason "manual"); the points return to the lots they came from.')
    .requiredOption('--usage <id>', 'usage record id')
    .option('--json', 'print one JSON object')
    .action(async (o: { usage: string; json?: boolean }) =>
      run(open, io, !!o.json, async ({ billing }) => {
        const { usage, refunded } = await billing.refund(o.usage, 'manual');
        const result = {
          usage_id: usage.id,
          account_id: usage.accountId,
          refunded_points: refunded,
          refunded: usage.refunded,
          refund_reason: usage.refundReason,
        };
        return {
          result,
          text:
            refunded > 0
              ? `Refunded ${refunded} points of usage ${usage.id}.`
              : `Usage ${usage.id} was already refunded (${usage.refundReason}); nothing changed.`,
        };
      }),
    );
}
