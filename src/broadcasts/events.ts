/**
 * Bus topics of broadcasts. A revoke is published so every process ends that broadcast's
 * host session and closes its viewers' streams, wherever they are connected; a change of its
 * caption sinks so the node hosting it reloads them.
 */
export type { BroadcastRevokedEvent, BroadcastSinksChangedEvent } from '../bus/topics.js';
export { BROADCAST_REVOKED_TOPIC, BROADCAST_SINKS_TOPIC } from '../bus/topics.js';
