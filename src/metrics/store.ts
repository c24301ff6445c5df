/** The reads behind the scrape-time gauges (the only SQL of the metrics feature). */
import type { Database } from '../store/database.js';

export interface CountBy {
  label: string;
  n: number;
}

export class MetricsStore {
  constructor(private readonly database: Database) {}

  /** Live sessions (realtime and broadcast recordings) by task status, those not finished. */
  async liveSessions(): Promise<CountBy[]> {
    const rows = await this.database.db
      .selectFrom('tasks')
      .select((eb) => ['processing_status as label', eb.fn.countAll<number | string>().as('n')])
      .where('type_source', 'in', ['realtime', 'broadcast'])
      .where('processing_status', 'in', ['recording', 'processing'])
      .groupBy('processing_status')
      .execute();
    return rows.map((r) => ({ label: r.label, n: Number(r.n) }));
  }

  /** Webhook deliveries by status (pending, waiting, delivered, failed). */
  async webhookDeliveries(): Promise<CountBy[]> {
    const rows = await this.database.db
      .selectFrom('webhook_deliveries')
      .select((eb) => ['status as label', eb.fn.countAll<number | string>().as('n')])
      .groupBy('status')
      .execute();
    return rows.map((r) => ({ label: r.label, n: Number(r.n) }));
  }

  /** Broadcasts running now (their viewers are counted by the seats). */
  async activeBroadcasts(): Promise<string[]> {
    const rows = await this.database.db.selectFrom('broadcasts').select('id').where('status', '=', 'active').execute();
    return rows.map((r) => r.id);
  }
}
