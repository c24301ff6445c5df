/**
 * The WebSocket endpoint `/ws` on the same HTTP server as the REST API. The ticket travels
 * as the subprotocol `ticket.<TICKET>`; the selected subprotocol is echoed (browsers drop
 * a connection whose offered protocol is not echoed). The ticket is consumed at connect; a
 * refused ticket or key still completes the handshake so the client can read the error
 * message, then the connection closes with a 4000-range code (README: close codes).
 */
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { WebSocketServer } from 'ws';
import type { Principal } from '../platform/auth/types.js';
import { AppError } from '../platform/errors/app-error.js';
import type { HttpApp } from '../platform/http/types.js';
import { Connection } from './connection.js';
import { startHeartbeat } from './instance-dir.js';
import { DEFAULT_LIMITS, type RealtimeLimits } from './limits.js';
import { LiveFleet } from './live/fleet.js';
import { serveHandovers } from './live/handover.js';
import { orphanFinisher } from './live/orphans.js';
import type { RealtimePorts } from './ports.js';
import { CLOSE, errorMessage } from './protocol.js';
import { recoverLocalCopy, recoverOrphans } from './recover.js';
import { ResumeDirectory } from './resume.js';
import { handOff } from './session/handover.js';
import { SessionRegistry } from './session/registry.js';

export const WS_PATH = '/ws';
const PREFIX = 'ticket.';

export interface RealtimeOptions {
  ports: RealtimePorts;
  logger: Logger;
  now: () => Date;
  limits?: Partial<RealtimeLimits>;
  /** Believe X-Forwarded-For for the client address (PARLEY_TRUST_PROXY), as the REST routes do. */
  trustProxy?: boolean;
}

export function registerRealtime(http: HttpApp, options: RealtimeOptions): void {
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const logger = options.logger.child({ component: 'realtime' });
  // This process's recordings live in their own folder, named by its fleet instance id, with a heartbeat (instance-dir.ts).
  const baseDir = options.ports.recording.tempDir;
  const instanceDir = join(baseDir, options.ports.live.instanceId);
  const ports: RealtimePorts = { ...options.ports, recording: { ...options.ports.recording, tempDir: instanceDir } };
  const stopHeartbeat = startHeartbeat(instanceDir);
  const { staleMs, ...recovery } = ports.recovery;
  // Gone processes' local recordings: at start, before anything may delete them, then every few
  // seconds (a process on another host sharing this data dir is only known gone once its heartbeat is stale).
  let recovering = false;
  const recoverLocal = () => {
    if (recovering) return;
    recovering = true;
    recoverOrphans(recovery, baseDir, instanceDir, staleMs)
      .then((n) => n > 0 && logger.warn({ recovered: n }, 'recordings of a stopped process recovered'))
      .catch((err) => logger.error({ err }, 'recording recovery failed'))
      .finally(() => {
        recovering = false;
      });
  };
  let stopRecovery: () => void = () => {};
  http.addHook('onListen', async () => {
    recoverLocal();
    const timer = setInterval(recoverLocal, Math.max(1000, Math.min(staleMs / 2, 15_000)));
    timer.unref();
    stopRecovery = () => clearInterval(timer);
    stopFleet = fleet.start();
  });
  // Open connections and those whose recording is still being finalized (vanished clients).
  const connections = new Set<Connection>();
  let shuttingDown = false;
  // Resume tokens of this process's connections (resume.ts); the fleet for the others' (src/realtime/live).
  const { instanceId } = ports.live;
  const finishFromSegments = orphanFinisher(ports.recording, ports.recovery.tasks);
  const fleet = new LiveFleet({
    ...ports.live,
    graceMs: limits.disconnectGraceMs,
    handoverTimeoutMs: limits.handoverTimeoutMs,
    logger: logger.child({ component: 'live-fleet' }),
    // The newest audio wins: a gone holder's local WAV on this data dir when it holds more than the segments.
    finishOrphan: async (row, snap) => {
      if (await recoverLocalCopy(recovery, baseDir, instanceDir, staleMs, row.task_id, row.bytes)) return;
      await finishFromSegments(row, snap);
    },
  });
  // The sessions of this process: those of open sockets and those waiting for their client (session/registry.ts).
  const registry = new SessionRegistry(() => [...connections].map((c) => c.session));
  const host = {
    shuttingDown: () => shuttingDown,
    resume: new ResumeDirectory(() => registry.all(), Date.now, instanceId),
    registry,
    fleet,
  };
  // A resume on another process asks for one of ours: the session parks it for that process.
  const handovers = serveHandovers(
    ports.live.bus,
    instanceId,
    async (req) => {
      const session = registry.byToken(req.token);
      const refuse = (code: 'resume_unavailable' | 'resume_ownership_mismatch', reason?: string) =>
        new AppError(code, { variant: 'websocket', details: { action: 'start', ...(reason ? { reason } : {}) } });
      if (!session) {
        // Ended here (its row says so once finalized): the reason this process remembers, e.g. resume_grace_expired.
        const known = host.resume.find(req.token, { keyId: req.key_id, accountId: '' });
        return known instanceof AppError ? known : refuse('resume_unavailable', 'recording_ending');
      }
      if (session.owner.keyId !== req.key_id) return refuse('resume_ownership_mismatch');
      const why = session.resumeRefusal();
      if (why) return refuse('resume_unavailable', why);
      return (await handOff(session, limits.disconnectGraceMs)) ? null : refuse('resume_unavailable', 'handover_failed');
    },
    logger,
  ).catch((err: unknown) => {
    logger.error({ err }, 'hand-over subscription failed');
    return () => {};
  });
  let stopFleet: () => void = () => {};
  // POST /tasks/{id}/force-fail of a live task: its session ends before the task fails.
  const forceEnd = ports
    .onForceEnd((taskId) => {
      for (const session of registry.byTask(taskId)) session.forceEnd();
    })
    .catch((err: unknown) => {
      logger.error({ err }, 'force-end subscription failed');
      return () => {};
    });
  // The server listens only once the subscription is live.
  http.addHook('onReady', async () => {
    await forceEnd;
    await handovers;
  });
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: limits.maxFrameBytes,
    // Without a ticket protocol the handshake still completes (echoing what was offered), so the
    // client receives the error that explains how to pass the ticket instead of a bare failure.
    handleProtocols: (protocols) => [...protocols].find((p) => p.startsWith(PREFIX)) ?? [...protocols][0] ?? false,
  });

  http.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== WS_PATH) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    void accept(req, socket, head);
  });

  async function accept(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const offered = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
    const ticket = offered.find((p) => p.startsWith(PREFIX))?.slice(PREFIX.length) ?? '';
    const ip = normalizeIp(clientAddress(req, options.trustProxy ?? false));
    let refusal: { err: AppError; code: number } | null = null;
    let principal: Principal | null = null;
    try {
      const outcome = ticket ? await ports.consumeTicket(ticket) : ({ ok: false, reason: 'ticket_invalid' } as const);
      if (!ticket) refusal = { err: noTicket(offered), code: CLOSE.ticket };
      else if (!outcome.ok) refusal = { err: new AppError(outcome.reason, { variant: 'websocket' }), code: CLOSE.ticket };
      else {
        principal = outcome.principal;
        await ports.checkKey(principal, ip);
      }
    } catch (err) {
      const appErr = err instanceof AppError ? err : new AppError('ticket_validation_failed', { variant: 'websocket', cause: err });
      if (!(err instanceof AppError)) logger.error({ err }, 'ticket validation failed');
      refusal = { err: appErr, code: appErr.code.startsWith('ticket_') ? CLOSE.ticket : CLOSE.keyRefused };
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      if (refusal || !principal) {
        const r = refusal ?? { err: new AppError('ticket_invalid', { variant: 'websocket' }), code: CLOSE.ticket };
        ws.send(errorMessage(r.err, options.now()));
        ws.close(r.code, r.err.code);
        return;
      }
      const conn = new Connection(ws, principal, ip, ports, limits, logger, options.now, host);
      connections.add(conn);
      ws.on('close', () => void conn.settled().finally(() => connections.delete(conn)));
      ws.on('error', (err) => logger.debug({ err: err.message }, 'websocket error'));
    });
  }

  // Shutdown: every session is told `service_shutdown`; recordings drain and are finalized
  // before the database closes (app.close runs after this hook); then the sockets are cut.
  http.addHook('preClose', async () => {
    shuttingDown = true;
    (await forceEnd)();
    // Hand-overs are still answered while sessions drain: a client told service_shutdown resumes elsewhere.
    await Promise.all([...connections].map((c) => c.shutdown()));
    (await handovers)();
    stopFleet();
    stopRecovery();
    const closed = [...wss.clients].map((ws) => new Promise((resolve) => ws.once('close', resolve)));
    await Promise.race([Promise.all(closed), new Promise((resolve) => setTimeout(resolve, 500).unref())]);
    for (const ws of wss.clients) ws.terminate();
    wss.close();
    stopHeartbeat();
  });
}

/** A connection that offered no `ticket.<TICKET>` subprotocol: say how to pass one (newcomers try a header or the query). */
function noTicket(offered: string[]): AppError {
  return new AppError('ticket_invalid', {
    variant: 'websocket',
    message:
      'No ticket: get one from POST /api/v1/auth/ticket (header X-API-Key), then connect with the WebSocket subprotocol "ticket.<TICKET>" ' +
      '(header Sec-WebSocket-Protocol: ticket.<TICKET>; in a browser new WebSocket(url, ["ticket." + ticket])). A ticket works once, for 60 seconds.',
    details: { reason: 'no_ticket_subprotocol', offered_subprotocols: offered.filter(Boolean) },
  });
}

/** IPv4-mapped IPv6 addresses compare as IPv4 against a key's rules. */
/** The peer address, or behind a trusted proxy the left-most X-Forwarded-For entry (the client), like Fastify's request.ip. */
function clientAddress(req: IncomingMessage, trustProxy: boolean): string {
  const forwarded = req.headers['x-forwarded-for'];
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
  return trustProxy && first ? first : (req.socket.remoteAddress ?? '');
}

function normalizeIp(ip: string): string {
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
}
