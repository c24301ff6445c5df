/**
 * Conflicts in a valid glossary: things the apply rules resolve deterministically but that are
 * probably not what the author meant. `POST /api/v1/glossary/validate` reports them so a
 * glossary can be fixed before it is saved; none of them makes the glossary invalid.
 *
 * - `variant_collision`: one misrecognized variant (compared case-insensitively) is listed by
 *   several fuzzy rules with different corrections; apply.ts picks one (strict rules win).
 * - `correction_chain`: a rule's correct form is another rule's variant; corrections run in
 *   one pass, so the second rule never applies to the first one's output.
 * - `duplicate_term`: the same term (case-insensitively) twice with different casing; the
 *   canonical casing becomes the last one listed.
 * - `dictionary_collision`: one source (case-insensitively) with different targets for the
 *   same target language; only one of them is used.
 */
import type { Glossary } from './types.js';

export type GlossaryConflictKind = 'variant_collision' | 'correction_chain' | 'duplicate_term' | 'dictionary_collision';

export interface GlossaryConflict {
  kind: GlossaryConflictKind;
  field: 'terminology' | 'fuzzy_correction' | 'translation_dict';
  language: string;
  /** The variant, term or source concerned. */
  value: string;
  /** Indexes of the entries involved, in that language's list. */
  indexes: number[];
  /** The competing corrections or targets (or casings). */
  candidates: string[];
}

export function findConflicts(g: Glossary): GlossaryConflict[] {
  const out: GlossaryConflict[] = [];
  for (const [language, rules] of Object.entries(g.fuzzyCorrection)) {
    const byVariant = new Map<string, { value: string; indexes: number[]; corrects: string[] }>();
    rules.forEach((r, i) => {
      for (const v of r.incorrect) {
        const e = byVariant.get(v.toLowerCase()) ?? { value: v, indexes: [], corrects: [] };
        if (!e.indexes.includes(i)) e.indexes.push(i);
        if (!e.corrects.includes(r.correct)) e.corrects.push(r.correct);
        byVariant.set(v.toLowerCase(), e);
      }
    });
    for (const e of byVariant.values())
      if (e.corrects.length > 1)
        out.push({
          kind: 'variant_collision',
          field: 'fuzzy_correction',
          language,
          value: e.value,
          indexes: e.indexes,
          candidates: e.corrects,
        });
    rules.forEach((r, i) => {
      const chained = byVariant.get(r.correct.toLowerCase());
      const others = chained?.indexes.filter((k) => k !== i) ?? [];
      if (chained && others.length)
        out.push({
          kind: 'correction_chain',
          field: 'fuzzy_correction',
          language,
          value: r.correct,
          indexes: [i, ...others],
          candidates: chained.corrects,
        });
    });
  }
  for (const [language, terms] of Object.entries(g.terminology)) {
    for (const e of groupsWithVariants(
      terms,
      (t) => t.term.toLowerCase(),
      (t) => t.term,
    )) {
      out.push({ kind: 'duplicate_term', field: 'terminology', language, value: e.first, indexes: e.indexes, candidates: e.variants });
    }
  }
  for (const [language, entries] of Object.entries(g.translationDict)) {
    for (const e of groupsWithVariants(
      entries,
      (d) => d.source.toLowerCase(),
      (d) => d.target,
      (d) => d.source,
    )) {
      out.push({
        kind: 'dictionary_collision',
        field: 'translation_dict',
        language,
        value: e.first,
        indexes: e.indexes,
        candidates: e.variants,
      });
    }
  }
  return out;
}

/** Entry counts of a parsed glossary, for replies (`config_updated`, validate). */
export function glossaryCounts(g: Glossary) {
  const count = (m: Record<string, unknown[]>) => Object.values(m).reduce((n, l) => n + l.length, 0);
  const languages = new Set([...Object.keys(g.terminology), ...Object.keys(g.fuzzyCorrection), ...Object.keys(g.translationDict)]);
  languages.delete('*');
  return {
    terminology: count(g.terminology),
    fuzzy_correction: count(g.fuzzyCorrection),
    translation_dict: count(g.translationDict),
    languages: [...languages].sort(),
  };
}

/**
 * Entries grouped by `key`; the groups whose entries disagree on `variant` (two casings of a
 * term, two targets of a source), with their indexes and the first entry's `label`.
 */
function groupsWithVariants<T>(
  list: T[],
  key: (t: T) => string,
  variant: (t: T) => string,
  label: (t: T) => string = variant,
): { first: string; indexes: number[]; variants: string[] }[] {
  const groups = new Map<string, { first: string; indexes: number[]; variants: string[] }>();
  list.forEach((t, i) => {
    const g = groups.get(key(t)) ?? { first: label(t), indexes: [], variants: [] };
    g.indexes.push(i);
    if (!g.variants.includes(variant(t))) g.variants.push(variant(t));
    groups.set(key(t), g);
  });
  return [...groups.values()].filter((g) => g.variants.length > 1);
}
