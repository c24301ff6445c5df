/**
 * A test Authenticator with fixed keys for two accounts, used by feature tests until (and
 * where) the real key service is not needed. Unknown keys fail as the real one does.
 */

import type { Authenticator, AuthInput, Principal } from '../../src/platform/auth/types.js';
import { AppError } from '../../src/platform/errors/app-error.js';

export const KEY_A = 'svc_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
export const KEY_B = 'svc_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
export const ACCOUNT_A: Principal = { accountId: '0a0a0a0a-0000-4000-8000-00000000000a', keyId: '0a0a0a0a-0000-4000-8000-0000000000aa' };
export const ACCOUNT_B: Principal = { accountId: '0b0b0b0b-0000-4000-8000-00000000000b', keyId: '0b0b0b0b-0000-4000-8000-0000000000bb' };

export class FixedKeyAuthenticator implements Authenticator {
  constructor(private readonly keys: Record<string, Principal> = { [KEY_A]: ACCOUNT_A, [KEY_B]: ACCOUNT_B }) {}

  async authenticate(input: AuthInput): Promise<Principal> {
    if (input.apiKey === undefined || input.apiKey === '') throw new AppError('auth_missing_api_key');
    const p = this.keys[input.apiKey];
    if (!p) throw new AppError('auth_invalid_api_key');
    return p;
  }
}
