/**
 * Meeting transcripts shared by the summary tests, the summarizer conformance suite and the
 * summary rubric (bench/summary-rubric.ts): one text each, so the rubric scores what is tested.
 */

/** A quarterly planning meeting: decisions, action items, a question and some small talk. */
export const MEETING = [
  'Good morning everyone, thanks for joining the quarterly planning meeting.',
  'Um, so the main topic today is the launch of the mobile app in Spain and Portugal.',
  'Marketing reported that the mobile app beta had twelve thousand users in Spain last month.',
  'Support tickets for the mobile app dropped by a third after the the last release.',
  'After some discussion we decided to launch the mobile app in Portugal in March.',
  'Maria will send the updated launch budget to finance by Friday.',
  'The weather was nice during the offsite.',
  'John needs to prepare the Portuguese translation of the app store page.',
  'Everyone agreed the beta results for the mobile app in Spain are strong.',
  'Who owns the customer support plan for Portugal?',
];

/** A quarterly budget meeting: a decision, an action item and small talk. */
export const BUDGET_MEETING = [
  'Good morning everyone, let us start with the budget for the next quarter.',
  'The marketing budget will grow by ten percent because the launch moved to March.',
  'Alice said the launch date in March is final and the press release is ready.',
  'We also talked about the weather and the new coffee machine in the kitchen.',
  'Bob will send the revised budget report to the finance team before Friday.',
  'The team agreed that hiring two engineers is the priority for the launch.',
  'Any other business can wait until next week.',
];
