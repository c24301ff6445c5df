/**
 * Bus topics of broadcasts. A revoke is published so every process ends that broadcast's
 * host session and closes its viewers' streams, wherever they are connected.
 */
export const BROADCAST_REVOKED_TOPIC = 'broadcast.revoked';

export interface BroadcastRevokedEvent {
  broadcast_id: string;
  token: string;
}
