/** Small TypeBox helpers the protocol document's actions and events share. */
import { type TSchema, Type } from 'typebox';

export const S = (description: string) => Type.String({ description });
/** The resume grace as clients see it (docs/live-modes.md "Resume"). */
export const RESUME_GRACE =
  'Parley extension: seconds a recording waits for a resume after its connection dropped (PARLEY_WS_DISCONNECT_GRACE_SECONDS, default 30); later, resume_grace_expired. Absent for broadcasts.';
export const Opt = <T extends TSchema>(t: T) => Type.Optional(t);
export const Open = (description: string) => Type.Object({}, { additionalProperties: true, description });
export const Langs = (description: string) => Type.Array(Type.String(), { description });
