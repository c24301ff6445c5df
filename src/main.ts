/**
 * Start-up: read configuration (every problem reported at once), build the app, listen, and
 * shut down gracefully on SIGTERM/SIGINT (in-flight requests finish; the grace period bounds
 * the exit whatever is slow: src/platform/shutdown.ts).
 */
import { buildApp } from './app.js';
import { createFirstAccountIfEmpty } from './bootstrap/first-start.js';
import { ConfigError, loadConfig, rolesWithoutBusProblem } from './config.js';
import { createEngines, logRoleEngines } from './engines/index.js';
import { createLogger } from './platform/logging.js';
import { limitMallocArenas } from './platform/native-memory.js';
import { installProcessGuards } from './platform/process-guards.js';
import { installShutdown } from './platform/shutdown.js';

async function main(): Promise<void> {
  // A reader of stdout/stderr that went away (a parent that piped us and exited) makes every
  // write fail with EPIPE: that must cost the output, never the process.
  process.stdout.on('error', () => {});
  process.stderr.on('error', () => {});
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
    // Checked before engines load (buildApp checks it again for every other caller).
    const busProblem = rolesWithoutBusProblem(config);
    if (busProblem) throw new ConfigError([busProblem]);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\nSee docs/configuration.md.\n`);
      process.exit(2);
    }
    throw err;
  }
  limitMallocArenas(config.platform.mallocArenas);
  // Each role loads the engine kinds its routes and jobs use (src/engines/index.ts).
  const logger = createLogger(config.platform.logLevel);
  const engineLogger = logger.child({ component: 'engines' });
  const engines = await createEngines(config, engineLogger);
  logRoleEngines(engines, config.platform.roles, engineLogger);
  const app = await buildApp(config, { engines, logger });
  // Fastify logs one "Server listening" line per interface at info; the line below and the
  // banner say the same once, so its own lines go out at debug only.
  const httpLog = app.http.log;
  const level = httpLog.level;
  if (!logger.isLevelEnabled('debug')) httpLog.level = 'warn';
  try {
    await app.http.listen({ port: config.platform.port, host: config.platform.host });
  } finally {
    httpLog.level = level;
  }
  const address = app.http.server.address();
  const port = typeof address === 'object' && address ? address.port : config.platform.port;
  const host = ['0.0.0.0', '::'].includes(config.platform.host) ? 'localhost' : config.platform.host;
  const url = `http://${host}:${port}`;
  logger.info({ roles: config.platform.roles, port, url, build: app.deps.build }, 'parley listening');
  // After listening, so the key's curl line names the real address.
  await createFirstAccountIfEmpty(app.deps, config.platform.starterCredit, undefined, url);
  // A short banner for people (the logs are for machines): where to go and what runs here.
  const ready = [...new Set(engines.status.filter((e) => e.available).map((e) => e.id))];
  process.stdout.write(
    [
      '',
      `Parley ${app.deps.build} on ${url} (${config.platform.roles.join(', ')})`,
      `  console ${url}/   REST docs ${url}/api/v1/docs   WebSocket docs ${url}/asyncapi`,
      `  engines: ${ready.length ? ready.join(', ') : 'none'} (details: npm run -s engines)`,
      '',
      '',
    ].join('\n'),
  );

  const stop = installShutdown({ graceMs: config.platform.shutdownGraceMs, logger, close: () => app.close() });
  // An error nobody caught: a rejection is logged and the process goes on, an exception stops it gracefully (why: process-guards.ts).
  installProcessGuards(logger, stop);
}

main().catch((err) => {
  process.stderr.write(`parley failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
