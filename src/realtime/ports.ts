/**
 * What the realtime feature needs from other features, as small interfaces, so the
 * WebSocket code can be tested and wired without knowing their internals. `src/app.ts`
 * builds these over the tickets and keys services (see `realtimePortsOf`).
 */
import type { AppDeps } from '../app.js';
import type { Principal } from '../platform/auth/types.js';
import { AppError } from '../platform/errors/app-error.js';

export type TicketOutcome =
  | { ok: true; principal: Principal }
  | { ok: false; reason: 'ticket_invalid' | 'ticket_expired' | 'ticket_already_used' };

export interface RealtimePorts {
  /** Atomic single use (the ticket is deleted by this call whatever the outcome). */
  consumeTicket(ticket: string): Promise<TicketOutcome>;
  /** The key checks that apply again on the WebSocket: throws the spec's auth_* AppError. */
  checkKey(principal: Principal, ip: string): Promise<void>;
}

export function realtimePortsOf(deps: Pick<AppDeps, 'tickets' | 'keys' | 'authenticator'>): RealtimePorts {
  return {
    async consumeTicket(ticket) {
      const r = await deps.tickets.consumeTicket(ticket);
      return r.ok ? { ok: true, principal: { accountId: r.accountId, keyId: r.keyId } } : r;
    },
    async checkKey(principal, ip) {
      const store = deps.keys.store;
      const key = await store.getKey(principal.keyId);
      const account = await store.findAccount(principal.accountId);
      if (!key || !account) throw new AppError('auth_invalid_api_key');
      deps.authenticator.check({ ...key, account_blocked: account.blocked, account_user_disabled: account.user_disabled }, ip);
    },
  };
}
