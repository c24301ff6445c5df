/**
 * Which synthesizer speaks a language, one rule for every TTS path (the voices list, samples,
 * the TTS SSE, in-session and broadcast speech). The synthesizers come best first (the
 * registry's order: a neural voice before eSpeak NG); a language's voices are all of theirs,
 * the best one's default first and the only default, so a voice chosen earlier (an eSpeak
 * voice name kept in a session's or broadcast's settings) still speaks when a better engine
 * is installed later. A named voice goes to the synthesizer that has it.
 */
import type { Synthesizer, Voice } from '../engines/types.js';

export interface VoiceChoice {
  engine: Synthesizer;
  voice: Voice;
}

/** Every voice for `language`, best synthesizer first; exactly one default (the best synthesizer's). */
export function voiceChoices(engines: readonly Synthesizer[], language: string): VoiceChoice[] {
  const all: VoiceChoice[] = [];
  const names = new Set<string>();
  for (const engine of engines)
    for (const voice of engine.voices(language)) {
      if (names.has(voice.voice_name)) continue; // two engines' same name: the better one speaks it
      names.add(voice.voice_name);
      all.push({ engine, voice });
    }
  const best = all.find((c) => c.engine === all[0]?.engine && c.voice.is_default) ?? all[0];
  return all.map((c) => ({ engine: c.engine, voice: { ...c.voice, is_default: c === best } }));
}

export const voicesFor = (engines: readonly Synthesizer[], language: string): Voice[] =>
  voiceChoices(engines, language).map((c) => c.voice);

/** The synthesizer for `language`: the one that has `voiceName` when given and known, else the best with voices for it. */
export function synthesizerFor(engines: readonly Synthesizer[], language: string, voiceName?: string | null): Synthesizer | null {
  const choices = voiceChoices(engines, language);
  return (voiceName ? choices.find((c) => c.voice.voice_name === voiceName)?.engine : undefined) ?? choices[0]?.engine ?? null;
}
