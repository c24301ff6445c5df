/** WebSocket test client: connects with a ticket subprotocol and collects messages in order. */
import WebSocket from 'ws';
import { realKey } from '../billing/support.js';
import { api, type TestApp } from '../support/app.js';

// biome-ignore lint/suspicious/noExplicitAny: tests read messages freely
export type Msg = { type: string; data: any };

export interface Client {
  ws: WebSocket;
  protocol: string;
  messages: Msg[];
  next(pred?: (m: Msg) => boolean, timeoutMs?: number): Promise<Msg>;
  closed: Promise<{ code: number; reason: string }>;
  send(obj: unknown): void;
}

export async function ticketAndKey(t: TestApp, keyInput: Parameters<typeof realKey>[1] = {}) {
  const k = await realKey(t, keyInput);
  await t.app.deps.billing.grantCredit({ accountId: k.accountId, points: 50, pool: 'account' });
  const r = await api(t.url, 'POST', '/api/v1/auth/ticket', { key: k.key });
  if (r.status !== 200) throw new Error(`ticket: ${r.status} ${JSON.stringify(r.body)}`);
  return { ticket: r.body.data.ticket as string, keyId: k.keyId, accountId: k.accountId };
}

export async function ticketFor(t: TestApp): Promise<string> {
  return (await ticketAndKey(t)).ticket;
}

export function connect(t: TestApp, protocols: string[]): Promise<Client> {
  const ws = new WebSocket(`${t.url.replace('http', 'ws')}/ws`, protocols);
  const messages: Msg[] = [];
  const waiters: { pred: (m: Msg) => boolean; resolve: (m: Msg) => void }[] = [];
  let seen = 0;
  ws.on('message', (d) => {
    const m = JSON.parse(d.toString()) as Msg;
    messages.push(m);
    for (const w of [...waiters]) {
      if (w.pred(m)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
        return;
      }
    }
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  return new Promise((resolve, reject) => {
    ws.on('error', reject);
    ws.on('open', () =>
      resolve({
        ws,
        protocol: ws.protocol,
        messages,
        closed,
        send: (obj) => ws.send(typeof obj === 'string' ? obj : JSON.stringify(obj)),
        next(pred = () => true, timeoutMs = 3000) {
          // Messages already received and not yet consumed count first.
          for (; seen < messages.length; ) {
            const m = messages[seen++]!;
            if (pred(m)) return Promise.resolve(m);
          }
          return new Promise((res, rej) => {
            const timer = setTimeout(() => rej(new Error('no matching message')), timeoutMs);
            waiters.push({
              pred,
              resolve: (m) => {
                seen = messages.length;
                clearTimeout(timer);
                res(m);
              },
            });
          });
        },
      }),
    );
  });
}
