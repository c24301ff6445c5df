/**
 * Changes to keys, accounts and billing rows, heard from PostgreSQL (LISTEN/NOTIFY, issue 30),
 * so that a process may answer the key lookup and the billing reads of a request from memory.
 *
 * Triggers (migrations 0703 and 0704) send a notice on CHANNEL in the transaction of every
 * insert, update, delete or truncate of api_keys and accounts ("<schema> auth") and of
 * account_plans, credit_lots and billing_charges ("<schema> billing <account id>", or no id for
 * all), whoever writes: any Parley process, the admin CLI, an operator's SQL. PostgreSQL delivers
 * a notice only once its transaction has committed, to every connection listening then.
 *
 * The feed turns them into versions: numbers drawn from one counter that only grows, so a version
 * never comes back. A cache keeps what it read beside the version it read it at (read before the
 * read), and trusts it only while the version is unchanged. The versions move on every notice,
 * on every change this process makes (`authChanged`, `billingChanged`: at once, before its own
 * notice comes back), and whenever the listening connection is made or lost. While it is not
 * listening the versions are undefined and nothing may be served from memory: requests read the
 * database as with the cache off. The feed checks that it hears, before it listens and every
 * HEARTBEAT_MS after: it sends a probe notice of its own on CHANNEL and must hear it back within
 * HEARTBEAT_TIMEOUT_MS, so a connection that died without an error (a peer gone from the
 * network) or one that cannot listen (a pooler in transaction mode hands LISTEN and NOTIFY to
 * different server connections) is not trusted.
 *
 * What this gives up against reading every request (ARCHITECTURE.md, "Keys and
 * authentication"): a change committed by another process is seen once its notice arrives (well
 * under a millisecond on one host) rather than by any request that starts after the commit; and
 * up to the heartbeat's window late when the listening connection is lost without an error.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const CHANGE_CHANNEL = 'parley_changes';
const HEARTBEAT_MS = 5_000;
const HEARTBEAT_TIMEOUT_MS = 2_000;
const RECONNECT_MS = [100, 500, 1_000, 2_000, 5_000];
/** More accounts than this with their own billing version: all move together (memory stays bounded). */
const MAX_ACCOUNTS = 50_000;

/** Versions a cache checks before trusting what it keeps (undefined: trust nothing now). */
export interface ChangeVersions {
  auth(): number | undefined;
  billing(accountId: string): number | undefined;
  /** This process changed a key or an account. */
  authChanged(): void;
  /** This process changed a plan, a credit lot or a charge. */
  billingChanged(): void;
}

export interface ChangeFeedLogger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

export class PostgresChangeFeed implements ChangeVersions {
  private counter = 0;
  private listening = false;
  private authAt = 0;
  private billingAllAt = 0;
  private readonly billingAt = new Map<string, number>();
  private client: pg.Client | undefined;
  private schema: string | undefined;
  private closed = false;
  private attempt = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly waiters: Array<() => void> = [];
  /** Probe notices sent and not yet heard back, by token (probe). */
  private readonly probing = new Map<string, () => void>();
  private probes = 0;
  /** This feed's own mark on its probes: every process of the schema hears them. */
  private readonly probeMark = randomBytes(6).toString('hex');

  constructor(private readonly options: { databaseUrl: string; pgSchema?: string; logger?: ChangeFeedLogger }) {
    void this.connect();
  }

  auth(): number | undefined {
    return this.listening ? this.authAt : undefined;
  }

  billing(accountId: string): number | undefined {
    if (!this.listening) return undefined;
    const own = this.billingAt.get(accountId);
    return own !== undefined && own > this.billingAllAt ? own : this.billingAllAt;
  }

  authChanged(): void {
    this.authAt = ++this.counter;
  }

  billingChanged(): void {
    this.billingAllAt = ++this.counter;
    this.billingAt.clear();
  }

  /** Resolves once the feed listens (tests; requests never wait for it). */
  ready(): Promise<void> {
    return this.listening ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }

  /**
   * Resolves once every notice committed before the call has been heard: PostgreSQL sends a
   * listening connection its pending notices before the answer to its next statement (tests).
   */
  async caughtUp(): Promise<void> {
    await this.client?.query('SELECT 1');
  }

  /** The listening connection's server process (tests cut it to see the feed recover). */
  async backendPid(): Promise<number | undefined> {
    return (await this.client?.query<{ pid: number }>('SELECT pg_backend_pid() AS pid'))?.rows[0]?.pid;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.setListening(false);
    clearTimeout(this.timer);
    await this.client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.options.databaseUrl,
      options: this.options.pgSchema ? `-c search_path=${this.options.pgSchema}` : undefined,
    });
    this.client = client;
    client.on('notification', (n) => this.heard(n.payload ?? ''));
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, undefined));
    try {
      await client.connect();
      this.schema = (await client.query<{ s: string }>('SELECT current_schema() AS s')).rows[0]?.s;
      await client.query(`LISTEN ${CHANGE_CHANNEL}`);
      await this.probe(client);
      if (this.closed || this.client !== client) return;
      this.attempt = 0;
      this.setListening(true);
      this.options.logger?.info({ schema: this.schema }, 'change feed listening');
      this.beat(client);
    } catch (err) {
      this.lost(client, err);
    }
  }

  /** A probe every HEARTBEAT_MS: a connection that no longer hears is dropped. */
  private beat(client: pg.Client): void {
    this.timer = setTimeout(() => {
      this.probe(client).then(
        () => {
          if (this.client === client && this.listening) this.beat(client);
        },
        (err: unknown) => this.lost(client, err),
      );
    }, HEARTBEAT_MS);
    this.timer.unref();
  }

  /** Sends a notice of its own and resolves when it is heard back (rejects after HEARTBEAT_TIMEOUT_MS). */
  private probe(client: pg.Client): Promise<void> {
    const token = `${this.probeMark}-${++this.probes}`;
    return new Promise<void>((resolve, reject) => {
      const late = setTimeout(() => {
        this.probing.delete(token);
        reject(new Error('the probe notice was not heard back'));
      }, HEARTBEAT_TIMEOUT_MS);
      late.unref();
      this.probing.set(token, () => {
        clearTimeout(late);
        resolve();
      });
      client.query('SELECT pg_notify($1, $2)', [CHANGE_CHANNEL, `${this.schema} probe ${token}`]).catch((err: unknown) => {
        clearTimeout(late);
        this.probing.delete(token);
        reject(err);
      });
    });
  }

  private heard(payload: string): void {
    // "<schema> auth", "<schema> billing [<account id>]" or "<schema> probe <token>".
    const [schema, kind, subject] = payload.split(' ');
    if (schema !== this.schema) return; // another deployment (or test) in the same database
    if (kind === 'probe') {
      const ours = subject ? this.probing.get(subject) : undefined; // other processes' probes too
      if (subject) this.probing.delete(subject);
      ours?.();
    } else if (kind === 'auth') this.authChanged();
    else if (kind === 'billing' && subject) {
      if (this.billingAt.size >= MAX_ACCOUNTS) this.billingChanged();
      else this.billingAt.set(subject, ++this.counter);
    } else if (kind === 'billing') this.billingChanged();
  }

  private lost(client: pg.Client, err: unknown): void {
    if (this.client !== client) return; // an older connection's late event
    this.client = undefined;
    this.setListening(false);
    clearTimeout(this.timer);
    client.end().catch(() => undefined);
    if (this.closed) return;
    const wait = RECONNECT_MS[Math.min(this.attempt++, RECONNECT_MS.length - 1)];
    this.options.logger?.warn(
      { err: err instanceof Error ? err.message : err, retryMs: wait },
      'change feed not listening: reads go to the database',
    );
    this.timer = setTimeout(() => void this.connect(), wait);
    this.timer.unref();
  }

  /** Listening or not, every version moves: nothing read before the change is trusted after it. */
  private setListening(on: boolean): void {
    this.authChanged();
    this.billingChanged();
    this.listening = on;
    if (on) for (const resolve of this.waiters.splice(0)) resolve();
  }
}
