/**
 * Local servers that speak the two caption ingestion protocols as their platforms document
 * them (docs/broadcasts.md, "Caption sinks"): each checks what a platform checks (a POST,
 * `text/plain`, `seq`, Zoom's `lang`, YouTube's caption time lines) and records every request.
 * `failNext` scripts answers (e.g. one 500) before the normal 200.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CaptionPost {
  seq: number;
  lang: string | null;
  contentType: string;
  body: string;
  /** The status this server answered. */
  status: number;
  /** YouTube: each caption's time line and text; Zoom: one caption, the whole body. */
  captions: { time: string | null; region: string | null; text: string }[];
}

export interface CaptionServer {
  /** The ingestion URL the platform would hand out (credentials in the query). */
  url: string;
  posts: CaptionPost[];
  /** Accepted posts only (status 200). */
  accepted(): CaptionPost[];
  /** Statuses (and optional Retry-After) answered to the next posts, before 200 again. */
  failNext: { status: number; retryAfter?: string }[];
  /** Every post fails with this status while set. */
  failAll: number | null;
  /** Problems a real platform would refuse (wrong method, type, missing seq, bad time line). */
  violations: string[];
  close(): Promise<void>;
}

/** YouTube's caption time: UTC with milliseconds (YYYY-MM-DDTHH:MM:SS.mmm), an optional region. */
const YT_TIME = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})(?: region:(\S+))?$/;

function read(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startCaptionServer(kind: 'youtube' | 'zoom'): Promise<CaptionServer> {
  const posts: CaptionPost[] = [];
  const violations: string[] = [];
  const s: CaptionServer = {
    url: '',
    posts,
    accepted: () => posts.filter((p) => p.status === 200),
    failNext: [],
    failAll: null,
    violations,
    close: () => new Promise((r) => server.close(() => r())),
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await read(req);
      const u = new URL(req.url ?? '/', 'http://x');
      const contentType = String(req.headers['content-type'] ?? '');
      const seq = Number(u.searchParams.get('seq'));
      const lang = u.searchParams.get('lang');
      if (req.method !== 'POST') violations.push(`method ${req.method}`);
      if (!contentType.startsWith('text/plain')) violations.push(`content-type ${contentType}`);
      if (!Number.isInteger(seq) || seq < 1) violations.push(`seq ${u.searchParams.get('seq')}`);
      if (kind === 'youtube' && u.searchParams.get('cid') !== 'stream-key') violations.push('cid lost');
      if (kind === 'zoom' && (u.searchParams.get('signature') !== 'sig' || !lang)) violations.push(`zoom query ${u.search}`);
      const captions: CaptionPost['captions'] = [];
      if (kind === 'youtube') {
        const lines = body.split('\n').filter((l) => l !== '');
        for (let i = 0; i < lines.length; i += 2) {
          const m = YT_TIME.exec(lines[i]!);
          if (!m || lines[i + 1] === undefined) violations.push(`caption lines ${JSON.stringify(lines.slice(i, i + 2))}`);
          captions.push({ time: m?.[1] ?? null, region: m?.[2] ?? null, text: lines[i + 1] ?? '' });
        }
      } else captions.push({ time: null, region: null, text: body });
      const scripted = s.failAll !== null ? { status: s.failAll } : s.failNext.shift();
      const status = scripted?.status ?? 200;
      posts.push({ seq, lang, contentType, body, status, captions });
      res.writeHead(status, {
        'content-type': 'text/plain',
        ...(scripted?.retryAfter ? { 'retry-after': scripted.retryAfter } : {}),
      });
      // YouTube answers with its server time (senders may use it to correct their clock).
      res.end(status === 200 && kind === 'youtube' ? `${new Date().toISOString().slice(0, 23)}\n` : '');
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  s.url =
    kind === 'youtube'
      ? `http://127.0.0.1:${port}/closedcaption?cid=stream-key`
      : `http://127.0.0.1:${port}/closedcaption?id=123&ns=abc&expire=86400&spparams=id%2Cns%2Cexpire&signature=sig`;
  return s;
}
