/**
 * The fuzzer in CI: a fixed seed and a bounded count (every REST operation of the served
 * OpenAPI document is called many times, every WebSocket action is sent), against a real
 * server process. Bad input must get the spec's errors: no 5xx, no hang (an answer within
 * 5 s), no crash, and nothing logged at error level. `npm run fuzz -- --seed N` runs more.
 */
import { describe, expect, it } from 'vitest';
import { formatReport, runFuzz } from './harness.js';

describe('API fuzzer (fixed seed)', () => {
  it('answers every generated bad request and WebSocket frame with a spec error: no 5xx, hang or crash', async () => {
    const report = await runFuzz({ seed: 1905, restCases: 1500, wsCases: 300 });
    const text = formatReport(report);
    // The run covered every operation and reached the handlers (not only the auth check).
    expect(report.operations, text).toBeGreaterThan(40);
    expect(Object.keys(report.byOperation)).toHaveLength(report.operations);
    expect(report.statuses['200'] ?? 0, text).toBeGreaterThan(100);
    expect(report.statuses['422'] ?? 0, text).toBeGreaterThan(100);
    // Findings first: the report then says what was sent when a crash cut the run short.
    expect(report.findings, text).toEqual([]);
    expect(report.crashed, text).toBe(false);
    expect(report.wsSent, text).toBe(300);
    expect(report.wsAnswers['error invalid_data'] ?? 0, text).toBeGreaterThan(10);
    expect(report.errorLogs, text).toEqual([]);
  }, 180_000);
});

describe('the fuzzer tells faults apart', () => {
  it('reports a 5xx as its status and a server that never answers as a hang', async () => {
    const { createServer } = await import('node:http');
    const { send } = await import('./rest.js');
    const server = createServer((req, res) => {
      if (req.url === '/boom') {
        res.statusCode = 500;
        res.end('{"data":{"error_code":"internal_error"}}');
      }
      // Any other path: never answered.
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      const boom = await send('127.0.0.1', port, { method: 'GET', target: '/boom', headers: [] }, 1000);
      expect(boom).toMatchObject({ kind: 'answered', status: 500 });
      expect(boom.head).toContain('internal_error');
      const silent = await send('127.0.0.1', port, { method: 'POST', target: '/x', headers: [], body: Buffer.from('{}') }, 300);
      expect(silent.kind).toBe('hang');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
