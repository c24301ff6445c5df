/**
 * WebSocket tickets, stored only as SHA-256 hashes. A consumed or expired ticket leaves a
 * tombstone for a while so `ticket_already_used` and `ticket_expired` can be told apart
 * from `ticket_invalid`.
 */
export interface TicketsTable {
  ticket_hash: string;
  account_id: string;
  /** The key that asked for it: a live recording started with it notifies this key. */
  key_id: string;
  expires_at: string;
  created_at: string;
}

export interface TicketTombstonesTable {
  ticket_hash: string;
  /** `used` or `expired` */
  reason: string;
  /** Deleted after this time; then the ticket is simply invalid. */
  forget_at: string;
}

export interface TicketTables {
  tickets: TicketsTable;
  ticket_tombstones: TicketTombstonesTable;
}
