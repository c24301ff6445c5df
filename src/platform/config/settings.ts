/**
 * Typed settings read from the environment. Each feature declares its own section with
 * `defineSection`; `src/config.ts` gathers the sections, so one call validates every
 * setting at start and reports every problem at once. docs/configuration.md's table lists
 * each variable (a test checks that none is missing).
 */

export interface Setting<T> {
  readonly env: string;
  readonly description: string;
  /** Shown in docs; undefined means "unset". */
  readonly defaultText: string | undefined;
  read(raw: string | undefined): T;
}

export class SettingError extends Error {}

function make<T>(env: string, description: string, defaultValue: T, parse: (raw: string) => T, defaultText?: string): Setting<T> {
  return {
    env,
    description,
    defaultText: defaultText ?? (defaultValue === undefined || defaultValue === null ? undefined : String(defaultValue)),
    read(raw) {
      if (raw === undefined || raw.trim() === '') return defaultValue;
      return parse(raw.trim());
    },
  };
}

export const settings = {
  string(env: string, description: string, defaultValue: string): Setting<string> {
    return make(env, description, defaultValue, (raw) => raw);
  },
  optionalString(env: string, description: string): Setting<string | undefined> {
    return make<string | undefined>(env, description, undefined, (raw) => raw);
  },
  int(env: string, description: string, defaultValue: number, range: { min?: number; max?: number } = {}): Setting<number> {
    return make(env, description, defaultValue, (raw) => {
      if (!/^-?\d+$/.test(raw)) throw new SettingError(`${env} must be an integer, got "${raw}"`);
      const n = Number(raw);
      if (range.min !== undefined && n < range.min) throw new SettingError(`${env} must be >= ${range.min}, got ${n}`);
      if (range.max !== undefined && n > range.max) throw new SettingError(`${env} must be <= ${range.max}, got ${n}`);
      return n;
    });
  },
  number(env: string, description: string, defaultValue: number, range: { min?: number; max?: number } = {}): Setting<number> {
    return make(env, description, defaultValue, (raw) => {
      const n = Number(raw);
      if (!Number.isFinite(n)) throw new SettingError(`${env} must be a number, got "${raw}"`);
      if (range.min !== undefined && n < range.min) throw new SettingError(`${env} must be >= ${range.min}, got ${n}`);
      if (range.max !== undefined && n > range.max) throw new SettingError(`${env} must be <= ${range.max}, got ${n}`);
      return n;
    });
  },
  bool(env: string, description: string, defaultValue: boolean): Setting<boolean> {
    return make(env, description, defaultValue, (raw) => {
      const v = raw.toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(v)) return true;
      if (['0', 'false', 'no', 'off'].includes(v)) return false;
      throw new SettingError(`${env} must be a boolean (1/0, true/false), got "${raw}"`);
    });
  },
  oneOf<const V extends string>(env: string, description: string, values: readonly V[], defaultValue: V): Setting<V> {
    return make(env, description, defaultValue, (raw) => {
      if (!(values as readonly string[]).includes(raw)) throw new SettingError(`${env} must be one of ${values.join(', ')}, got "${raw}"`);
      return raw as V;
    });
  },
  list(env: string, description: string, defaultValue: string[]): Setting<string[]> {
    return make(
      env,
      description,
      defaultValue,
      (raw) =>
        raw
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      defaultValue.length ? defaultValue.join(',') : undefined,
    );
  },
  url(env: string, description: string, protocols: string[]): Setting<string | undefined> {
    return make<string | undefined>(env, description, undefined, (raw) => {
      let u: URL;
      try {
        u = new URL(raw);
      } catch {
        throw new SettingError(`${env} must be a URL, got "${redactUrl(raw)}"`);
      }
      if (!protocols.includes(u.protocol)) throw new SettingError(`${env} must use ${protocols.join(' or ')}, got ${u.protocol}`);
      return raw;
    });
  },
  /** Any custom parse; `parse` throws SettingError with a clear message. */
  custom<T>(env: string, description: string, defaultValue: T, parse: (raw: string) => T, defaultText?: string): Setting<T> {
    return make(env, description, defaultValue, parse, defaultText);
  },
};

/** Hides credentials in a URL for messages and logs. */
export function redactUrl(raw: string): string {
  try {
    const u = new URL(raw);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return raw.replace(/\/\/[^@/]*@/, '//***@');
  }
}

// biome-ignore lint/suspicious/noExplicitAny: a section holds settings of any value type
export type Section = Record<string, Setting<any>>;
export type SectionValues<S extends Section> = { [K in keyof S]: ReturnType<S[K]['read']> };

export function defineSection<S extends Section>(section: S): S {
  return section;
}

/** Reads a section; collects every problem instead of stopping at the first. */
export function readSection<S extends Section>(section: S, env: Record<string, string | undefined>, problems: string[]): SectionValues<S> {
  const out: Record<string, unknown> = {};
  for (const [key, s] of Object.entries(section)) {
    try {
      out[key] = s.read(env[s.env]);
    } catch (err) {
      problems.push(err instanceof Error ? err.message : String(err));
    }
  }
  return out as SectionValues<S>;
}

/** Configuration that cannot start the service: every problem found, listed together. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}
