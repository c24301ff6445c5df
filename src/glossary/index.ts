/** Glossary: parse/validate the three lists, apply them to recognized text and around translation. */
export { applyFuzzyCorrection, applyGlossary, applyTerminology, termHints } from './apply.js';
export { glossaryImportError, glossarySocketError } from './errors.js';
export { glossaryLimits } from './limits.js';
export { dictionaryFor, protectTerms, restoreTerms, translateWithDictionary } from './translate.js';
export * from './types.js';
export { type GlossaryInput, type GlossaryParseResult, parseGlossary } from './validate.js';
