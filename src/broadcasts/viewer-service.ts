/**
 * The viewers' side over REST, without an API key (spec "Broadcasts and viewers"): the
 * public view of a channel by its token, and the password check that hands out a
 * viewer_access_token (24 hours, stored hashed). Every lookup goes through the abuse
 * limits first (abuse.ts).
 */
import { AppError } from '../platform/errors/app-error.js';
import type { ViewerGuard } from './abuse.js';
import { display } from './display.js';
import { PASS_CODE_MAX } from './rules.js';
import { CHANNEL_TOKEN, hashViewerToken, newViewerToken, passCodeMatches } from './secrets.js';
import { isLive } from './service.js';
import type { Broadcast, BroadcastStore } from './store.js';

export const VIEWER_TOKEN_TTL_MS = 24 * 3_600_000;
const SWEEP_EVERY_MS = 600_000;

export interface VoiceSummary {
  voice_name: string;
  display_name: string;
  gender: 'Female' | 'Male';
}

export interface ViewerServiceDeps {
  store: BroadcastStore;
  guard: ViewerGuard;
  /** Voices of the synthesizer serving `language` here ([] when none does). */
  voices(language: string): VoiceSummary[];
  now: () => Date;
}

export interface VerifyResult {
  viewer_access_token: string | null;
  expires_at: string | null;
  message?: string;
}

export class ViewerService {
  private lastSweep = 0;

  constructor(private readonly d: ViewerServiceDeps) {}

  /**
   * The channel a viewer names, after the abuse limits: 401 broadcast_token_invalid for
   * unknown (or malformed) tokens, 401 broadcast_token_revoked for revoked channels, 429
   * past a limit. Ended broadcasts are found (their view says `ended`).
   */
  async lookup(token: string, source: string): Promise<Broadcast> {
    await this.d.guard.assertSourceAllowed(source);
    const b = CHANNEL_TOKEN.test(token) ? await this.d.store.findByToken(token) : null;
    if (!b) {
      await this.d.guard.countUnknown(source);
      throw new AppError('broadcast_token_invalid');
    }
    await this.d.guard.hitChannel(b, source);
    if (b.status === 'revoked') throw new AppError('broadcast_token_revoked');
    return b;
  }

  async publicView(token: string, source: string) {
    return this.view(await this.lookup(token, source));
  }

  /** Every field of the spec's "Broadcast (public view)". */
  view(b: Broadcast) {
    const live = isLive(b);
    const voices = Object.fromEntries(
      b.translationLanguages.map((l) => [l, this.d.voices(l)] as const).filter(([, list]) => list.length > 0),
    );
    return {
      id: b.id,
      name: b.name,
      access_type: b.accessType,
      requires_password: b.accessType === 'password',
      status: b.status,
      is_live: live,
      transcription_language: b.transcriptionLanguages[0] ?? null,
      transcription_languages: b.transcriptionLanguages,
      translation_languages: b.translationLanguages,
      // Published by the node hosting the broadcast (it synthesizes), not this node's synthesizers.
      tts_languages: live ? (b.ttsLanguages ?? []) : [],
      tts_voices: voices,
    };
  }

  /** Checks the password (422 validation_failed for a missing or over-long one) and issues a viewer token. */
  async verify(token: string, body: unknown, source: string, displayHint?: string): Promise<VerifyResult> {
    const password = passwordOf(body);
    const b = await this.lookup(token, source);
    if (b.accessType !== 'password' || b.passCodeHash === null) {
      return { viewer_access_token: null, expires_at: null, message: display('public_channel', displayHint) };
    }
    await this.d.guard.assertPasswordsAllowed(b.id, source);
    if (!(await passCodeMatches(password, b.passCodeHash))) {
      await this.d.guard.countWrongPassword(b.id, source);
      throw new AppError('broadcast_password_incorrect');
    }
    const now = this.d.now();
    const viewerToken = newViewerToken();
    const expiresAt = new Date(now.getTime() + VIEWER_TOKEN_TTL_MS);
    await this.d.store.issueViewerToken({
      hash: hashViewerToken(viewerToken),
      broadcastId: b.id,
      accessVersion: b.accessVersion,
      expiresAt,
      now,
    });
    if (now.getTime() - this.lastSweep > SWEEP_EVERY_MS) {
      this.lastSweep = now.getTime();
      await this.d.store.sweepViewerTokens(now);
    }
    return { viewer_access_token: viewerToken, expires_at: expiresAt.toISOString() };
  }

  /** May this viewer read a password channel? (public channels: always) */
  async admits(b: Broadcast, viewerToken: string | undefined): Promise<boolean> {
    if (b.accessType !== 'password') return true;
    if (!viewerToken) return false;
    return this.d.store.viewerTokenValid(hashViewerToken(viewerToken), b, this.d.now());
  }
}

/** The password of a verify body; `details` say what is wrong (as the framework's validation does: field, location, reason). */
function passwordOf(body: unknown): string {
  const invalid = (message: string, reason: 'required' | 'type' | 'too_long') =>
    new AppError('validation_failed', {
      message,
      details: {
        field: 'password',
        location: 'body',
        reason,
        ...(reason === 'too_long' ? { max: PASS_CODE_MAX } : { expected: 'string' }),
      },
    });
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalid('The body must be a JSON object with password.', 'required');
  const p = (body as Record<string, unknown>).password;
  if (p === undefined) throw invalid('password is required.', 'required');
  if (typeof p !== 'string') throw invalid('password must be a string.', 'type');
  if ([...p].length > PASS_CODE_MAX) throw invalid(`password is at most ${PASS_CODE_MAX} characters.`, 'too_long');
  return p;
}
