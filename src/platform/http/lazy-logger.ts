/**
 * Request loggers made only when a request logs (issue 30). Fastify gives every request a
 * child logger bound to its id; pino builds a child by serializing the bindings and setting
 * up its state, on every request, although almost no request logs anything beyond its one
 * line (written by request-log.ts, which needs no child). Here each request gets a small
 * object standing for that child: logging through it at an enabled level builds the real
 * child once (with the same bindings) and writes through it, so a line is the same as before.
 */
import type { Bindings, ChildLoggerOptions, Logger } from 'pino';

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
const BINDINGS = Symbol('request logger bindings');
const REAL = Symbol('request logger');

interface Lazy {
  [BINDINGS]: Bindings;
  [REAL]?: Logger;
}

/** Methods shared by the stand-ins of one parent logger; everything else reads through to the parent. */
function standInPrototype(parent: Logger): object {
  const proto = Object.create(parent) as Record<string, unknown>;
  const real = (self: Lazy): Logger => {
    self[REAL] ??= parent.child(self[BINDINGS]);
    return self[REAL];
  };
  for (const level of LEVELS) {
    proto[level] = function (this: Lazy, ...args: unknown[]) {
      if (this[REAL] === undefined && !parent.isLevelEnabled(level)) return;
      (real(this)[level] as (...a: unknown[]) => void)(...args);
    };
  }
  proto.child = function (this: Lazy, bindings: Bindings, options?: ChildLoggerOptions) {
    return real(this).child(bindings, options);
  };
  proto.bindings = function (this: Lazy) {
    return real(this).bindings();
  };
  proto.setBindings = function (this: Lazy, bindings: Bindings) {
    real(this).setBindings(bindings);
  };
  return proto;
}

/** Fastify's `childLoggerFactory`: a stand-in unless the route asks for logger options of its own. */
export function lazyChildLoggers(): (logger: Logger, bindings: Bindings, options: ChildLoggerOptions) => Logger {
  const prototypes = new WeakMap<Logger, object>();
  return (logger, bindings, options) => {
    for (const _ in options) return logger.child(bindings, options);
    let proto = prototypes.get(logger);
    if (!proto) {
      proto = standInPrototype(logger);
      prototypes.set(logger, proto);
    }
    const standIn = Object.create(proto) as Lazy;
    standIn[BINDINGS] = bindings;
    return standIn as unknown as Logger;
  };
}
