/**
 * Roles split across processes talk over the bus (force-fail to a live session, import
 * progress to its stream, credit events to the webhook worker, live events to other nodes):
 * a process that runs only some roles without a shared bus is refused at start, with the
 * reason and the fix.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { ConfigError, rolesWithoutBusProblem } from '../../src/config.js';
import { testConfig } from '../support/app.js';
import { localServerEnv, startServer } from '../support/server.js';

describe('roles split without a shared bus', () => {
  it.each(['api', 'worker', 'realtime', 'api,realtime', 'api,worker', 'realtime,worker'])(
    'PARLEY_ROLES=%s without REDIS_URL is refused by buildApp with the missing roles and the fix',
    async (roles) => {
      const dir = mkdtempSync(join(tmpdir(), 'parley-roles-'));
      try {
        const err = await buildApp(testConfig(dir, 'sqlite', { PARLEY_ROLES: roles })).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ConfigError);
        const msg = (err as Error).message;
        expect(msg).toContain(`PARLEY_ROLES=${roles}`);
        expect(msg).toContain('REDIS_URL');
        for (const missing of ['api', 'realtime', 'worker'].filter((r) => !roles.split(',').includes(r))) expect(msg).toContain(missing);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it('every role in one process needs no bus; split roles with REDIS_URL are accepted', () => {
    const dir = '/nowhere';
    expect(rolesWithoutBusProblem(testConfig(dir, 'sqlite', {}))).toBeNull();
    expect(rolesWithoutBusProblem(testConfig(dir, 'sqlite', { PARLEY_ROLES: 'worker,api,realtime' }))).toBeNull();
    expect(rolesWithoutBusProblem(testConfig(dir, 'sqlite', { PARLEY_ROLES: 'api', REDIS_URL: 'redis://127.0.0.1:6379' }))).toBeNull();
  });

  it('the server process exits with status 2 and says why', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-roles-'));
    try {
      const { env } = await localServerEnv(dir, { PARLEY_ROLES: 'worker' });
      const s = startServer(env);
      await s.exited;
      expect(s.child.exitCode).toBe(2);
      expect(s.output()).toContain('Invalid configuration');
      expect(s.output()).toContain('Set REDIS_URL');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
