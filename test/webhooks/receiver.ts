/** A real HTTP webhook receiver on port 0 that records every request (tests only). */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

export interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  /** performance.now() when the request arrived. */
  at: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read envelopes freely
  json: any;
}

export interface Receiver {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

export async function startReceiver(answer: (req: Received, res: ServerResponse) => void = (_r, res) => res.end('ok')): Promise<Receiver> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {
        /* keep null */
      }
      const r: Received = { headers: req.headers, body, at: performance.now(), json };
      received.push(r);
      answer(r, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
