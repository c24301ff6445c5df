/**
 * Bus topics of broadcasts. A revoke is published so every process ends that broadcast's
 * host session and closes its viewers' streams, wherever they are connected.
 */
export type { BroadcastRevokedEvent } from '../bus/topics.js';
export { BROADCAST_REVOKED_TOPIC } from '../bus/topics.js';
