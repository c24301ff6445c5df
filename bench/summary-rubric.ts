/**
 * The facts each summary of the project's meeting texts must keep (bench:summary), written
 * before any model output was read, so the rubric cannot be fitted to one engine. A fact is
 * kept when every one of its groups matches somewhere in the summary (case-insensitive; a
 * group lists equivalent wordings). `noise` lists sentences of the transcript that carry no
 * information: a summary that repeats them wastes its length (reported, not scored).
 *
 * The texts: MEETING_A is the regenerate tests' meeting (test/summaries/support.ts),
 * MEETING_B the summarizer conformance suite's (test/engines/conformance/summarizer.test.ts).
 */

export interface Fact {
  name: string;
  /** Every group must match; within a group, any pattern. */
  groups: RegExp[][];
}

export interface RubricCase {
  name: string;
  segments: string[];
  /** What a good summary keeps (builtin template: meeting minutes). */
  facts: Fact[];
  /** The custom prompt and the facts its answer must hold (and what it should leave out). */
  custom: { prompt: string; facts: Fact[] };
  noise: RegExp[];
}

import { BUDGET_MEETING, MEETING } from '../test/support/meetings.js';

const f = (name: string, ...groups: RegExp[][]): Fact => ({ name, groups });

export const MEETING_A: RubricCase = {
  name: 'A: mobile app launch (10 sentences)',
  segments: MEETING,
  facts: [
    f('decision: launch in Portugal in March', [/portugal/i], [/march/i], [/launch/i]),
    f('action: Maria sends the budget by Friday', [/maria/i], [/budget/i], [/friday/i]),
    f('action: John prepares the Portuguese store page', [/john/i], [/portuguese|translation/i]),
    f('figure: 12,000 beta users in Spain', [/twelve thousand|12[,.\s]?000|12k/i]),
    f('figure: support tickets down by a third', [/third|33\s?%/i], [/ticket/i]),
    f('open question: owner of the Portugal support plan', [/support plan/i]),
  ],
  custom: {
    prompt: 'List only the action items, each with the person responsible and the deadline if one was stated.',
    facts: [
      f('Maria: budget to finance, Friday', [/maria/i], [/budget/i], [/friday/i]),
      f('John: Portuguese translation of the store page', [/john/i], [/portuguese|translation/i]),
    ],
  },
  noise: [/weather/i, /good morning/i],
};

export const MEETING_B: RubricCase = {
  name: 'B: quarterly budget (7 sentences)',
  segments: BUDGET_MEETING,
  facts: [
    f('marketing budget +10 %', [/marketing/i], [/ten percent|10\s?%|10 percent/i]),
    f('launch in March (final)', [/launch/i], [/march/i]),
    f('press release ready', [/press release/i]),
    f('action: Bob sends the budget report by Friday', [/bob/i], [/report|budget/i], [/friday/i]),
    f('priority: hire two engineers', [/two engineers|2 engineers/i]),
  ],
  custom: {
    prompt: 'In one or two sentences: what changes in the budget, and why?',
    facts: [f('marketing +10 % because the launch moved to March', [/ten percent|10\s?%|10 percent/i], [/march|launch/i])],
  },
  noise: [/coffee/i, /weather/i],
};

export const RUBRIC: RubricCase[] = [MEETING_A, MEETING_B];

export function kept(text: string, facts: Fact[]): string[] {
  return facts.filter((fact) => fact.groups.every((g) => g.some((re) => re.test(text)))).map((fact) => fact.name);
}
