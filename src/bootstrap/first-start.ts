/**
 * First start: with an empty database the service creates one account with starter credit
 * and prints its API key once, so a newcomer can call the API at once. The key goes to
 * stdout only (never to the log); the log says that a key was created.
 */
import type { Logger } from 'pino';
import type { BillingService } from '../billing/service.js';
import type { KeyService } from '../keys/service.js';

export interface FirstStartResult {
  api_key: string;
  key_id: string;
  account_id: string;
  credit: number;
}

export async function createFirstAccountIfEmpty(
  deps: { keys: KeyService; billing: BillingService; logger: Logger },
  starterCredit: number,
  print: (text: string) => void = (t) => process.stdout.write(t),
  /** Where the service answers (the curl line uses it). */
  baseUrl = 'http://localhost:8080',
): Promise<FirstStartResult | null> {
  if ((await deps.keys.store.countAccounts()) > 0) return null;
  const created = await deps.keys.createKey({ name: 'Starter key' });
  if (starterCredit > 0) await deps.billing.grantCredit({ accountId: created.account_id, points: starterCredit, pool: 'account' });
  print(
    [
      '',
      '================================================================',
      ' Parley: first start. An account and an API key were created.',
      ` API key (shown once, keep it): ${created.api_key}`,
      ` Account: ${created.account_id}   Starter credit: ${starterCredit} points`,
      ` Try: curl -H "X-API-Key: <key>" ${baseUrl}/api/v1/me/plan`,
      ' More keys: npm run -s admin -- create-key --help',
      '================================================================',
      '',
    ].join('\n'),
  );
  deps.logger.info(
    { account_id: created.account_id, key_id: created.key_id },
    'first start: created an account and an API key (printed once to stdout)',
  );
  return { api_key: created.api_key, key_id: created.key_id, account_id: created.account_id, credit: starterCredit };
}
