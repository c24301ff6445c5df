/**
 * What several engine factories of one registry build once and share (the PocketSphinx decoder
 * pools and VAD both of its recognizers use). One per `EngineRegistry.create`, handed to every
 * factory in its context, so two registries in one process (tests, a CLI beside a server)
 * each get their own, built from their own configuration.
 */
export class SharedResources {
  private readonly made = new Map<string, Promise<unknown>>();

  /** The resource under `key`, made on first ask; later asks (also concurrent ones) get the same. */
  once<T>(key: string, make: () => Promise<T>): Promise<T> {
    let p = this.made.get(key) as Promise<T> | undefined;
    if (!p) {
      p = make();
      this.made.set(key, p);
    }
    return p;
  }
}
