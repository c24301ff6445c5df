import type { Config } from '../config.js';
import type { GlossaryLimits } from './types.js';

/** The glossary limits this environment runs with (PARLEY_GLOSSARY_* settings). */
export function glossaryLimits(config: Config): GlossaryLimits {
  const e = config.engines;
  return {
    termMaxChars: e.glossaryTermMaxChars,
    termsPerLanguage: e.glossaryTermsPerLanguage,
    termsTotal: e.glossaryTermsTotal,
    fuzzyMaxChars: e.glossaryFuzzyMaxChars,
    fuzzyRulesPerLanguage: e.glossaryFuzzyPerLanguage,
    fuzzyRulesTotal: e.glossaryFuzzyTotal,
    dictMaxChars: e.glossaryDictMaxChars,
    dictEntriesPerLanguage: e.glossaryDictPerLanguage,
    maxLanguages: e.glossaryMaxLanguages,
    maxPayloadBytes: e.glossaryMaxBytes,
  };
}
