/**
 * A draft (interim) pass of a live stream, raced against its utterance's final (over-file.ts):
 * the final is asked for as soon as the utterance ends, beside the draft in flight, and whichever
 * comes back first decides whether the draft is still shown.
 */
export interface DraftPass {
  /** Aborts the draft's request (an engine host skips it if it has not decoded it yet). */
  request: AbortController;
  /** Called when the utterance's final has come back. */
  finalBack: () => void;
  finalIsBack: () => boolean;
  /** 'draft' when the draft came back (or failed) first, 'final' when its final did. */
  firstBack: (drafting: Promise<unknown>) => Promise<'draft' | 'final'>;
}

export function draftPass(): DraftPass {
  let back = false;
  let resolveHere = () => {};
  const finalHere = new Promise<void>((resolve) => {
    resolveHere = resolve;
  });
  return {
    request: new AbortController(),
    finalBack: () => {
      back = true;
      resolveHere();
    },
    finalIsBack: () => back,
    firstBack: (drafting) =>
      Promise.race([
        drafting.then(
          () => 'draft' as const,
          () => 'draft' as const,
        ),
        finalHere.then(() => 'final' as const),
      ]),
  };
}
