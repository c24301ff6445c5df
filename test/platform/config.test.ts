import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { withConfigTable } from '../../src/config-docs.js';

describe('configuration', () => {
  it('defaults give the embedded setup: port 8080, all roles, SQLite', () => {
    const c = loadConfig({});
    expect(c.platform.port).toBe(8080);
    expect(c.platform.roles).toEqual(['api', 'realtime', 'worker']);
    expect(c.platform.databaseUrl).toBeUndefined();
    expect(c.platform.dataDir).toBe('./data');
  });

  it('reports every invalid setting at once, by name', () => {
    try {
      loadConfig({ PORT: 'eighty', PARLEY_ROLES: 'api,cook', DATABASE_URL: 'mysql://x', PARLEY_TIME_ZONE: 'Mars/Olympus' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const msg = (err as Error).message;
      for (const name of ['PORT', 'PARLEY_ROLES', 'DATABASE_URL', 'PARLEY_TIME_ZONE']) expect(msg).toContain(name);
    }
  });

  it('never echoes a database password in its messages', () => {
    expect(() => loadConfig({ DATABASE_URL: 'notaurl://user:hunter2@' })).toThrow();
    try {
      loadConfig({ DATABASE_URL: 'mysql://user:hunter2@db/x' });
    } catch (err) {
      expect((err as Error).message).not.toContain('hunter2');
    }
  });

  it('docs/configuration.md documents every setting (generated table is up to date: npm run -s docs:config)', () => {
    const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'configuration.md'), 'utf8');
    expect(doc).toBe(withConfigTable(doc));
  });
});
