/**
 * Parley's built-in templates. Prompts are written for the LLM summarizer; the extractive
 * summarizer uses the section headings of `output_format` to lay out what it extracts.
 */
import type { SummaryTemplate } from './types.js';

const FACTS_ONLY =
  'Use only facts stated in the transcript; never invent names, numbers, dates or decisions. Write "not discussed" for a section with nothing in the transcript.';

const sections = (...names: string[]) => names.map((n) => `## ${n}`).join('\n');

export const BUILTIN_TEMPLATES: readonly SummaryTemplate[] = [
  {
    slug: 'general-summary',
    name: 'General summary',
    description: 'A short overview of what was said, with the key points.',
    category: 'summary',
    system_prompt: `You write accurate, concise summaries of transcripts. ${FACTS_ONLY}`,
    template_prompt: 'Summarize the transcript: a short overview, then the key points in the order they came up.',
    output_format: sections('Overview', 'Key points'),
    enabled: true,
  },
  {
    slug: 'meeting-minutes',
    name: 'Meeting minutes',
    description: 'Minutes of a meeting: participants, topics, decisions and next steps.',
    category: 'summary',
    system_prompt: `You are a meeting secretary who writes clear, neutral minutes. ${FACTS_ONLY}`,
    template_prompt:
      'Write the minutes of this meeting. List the participants named in it, the topics discussed with the main arguments, each decision taken, and the agreed next steps with owners and due dates when stated.',
    output_format: sections('Participants', 'Topics discussed', 'Decisions', 'Next steps'),
    enabled: true,
  },
  {
    slug: 'action-items',
    name: 'Action items',
    description: 'Only the tasks agreed in the conversation, with owner and due date.',
    category: 'summary',
    system_prompt: `You extract commitments from conversations. ${FACTS_ONLY}`,
    template_prompt:
      'List every task someone agreed to do: one line per task with the task, its owner and its due date when stated. Then list the questions left open.',
    output_format: sections('Action items', 'Open questions'),
    enabled: true,
  },
  {
    slug: 'lecture-notes',
    name: 'Lecture notes',
    description: 'Study notes of a lecture or talk: concepts, definitions, examples.',
    category: 'summary',
    system_prompt: `You write study notes for students from lecture transcripts. ${FACTS_ONLY}`,
    template_prompt:
      'Write study notes for this lecture: the main topic, the key concepts with their definitions as the speaker gave them, the examples used, and a short recap a student can review.',
    output_format: sections('Topic', 'Key concepts', 'Examples', 'Recap'),
    enabled: true,
  },
  {
    slug: 'interview',
    name: 'Interview summary',
    description: 'An interview: who was interviewed, questions asked and the answers given.',
    category: 'summary',
    system_prompt: `You summarize interviews faithfully, keeping each answer attributed to who gave it. ${FACTS_ONLY}`,
    template_prompt:
      'Summarize this interview: who was interviewed and about what, each main question with the answer given, notable statements, and any follow-up agreed.',
    output_format: sections('Interviewee and subject', 'Questions and answers', 'Notable statements', 'Follow-up'),
    enabled: true,
  },
  {
    slug: 'soap-note',
    name: 'SOAP note',
    description: 'A clinical SOAP note (subjective, objective, assessment, plan) from a patient encounter.',
    category: 'medical',
    system_prompt: `You are a clinical documentation assistant writing SOAP notes for a clinician to review. ${FACTS_ONLY} Do not add diagnoses, doses or findings that were not stated.`,
    template_prompt:
      "Write a SOAP note of this encounter. Subjective: the complaint and history in the patient's words. Objective: examination findings, vital signs and results stated. Assessment: the clinician's stated assessment. Plan: tests, treatment, medication with doses as stated, and follow-up.",
    output_format: sections('Subjective', 'Objective', 'Assessment', 'Plan'),
    enabled: true,
  },
  {
    slug: 'medical-consultation',
    name: 'Medical consultation',
    description: 'A consultation summary: reason, history, findings, recommendations.',
    category: 'medical',
    system_prompt: `You are a clinical documentation assistant writing consultation summaries for a clinician to review. ${FACTS_ONLY}`,
    template_prompt:
      'Summarize this medical consultation: the reason for the consultation, the relevant history, the findings discussed, the recommendations made, and what the patient was told to do next.',
    output_format: sections('Reason for consultation', 'History', 'Findings', 'Recommendations', 'Patient instructions'),
    enabled: true,
  },
  {
    slug: 'deposition-summary',
    name: 'Deposition summary',
    description: 'A deposition: witness, examination topics, key testimony and objections.',
    category: 'legal',
    system_prompt: `You are a paralegal summarizing deposition transcripts precisely and neutrally. ${FACTS_ONLY} Keep testimony attributed to the witness and do not characterize credibility.`,
    template_prompt:
      'Summarize this deposition: the witness and the examining parties, the topics covered in order, the key testimony on each topic, admissions, and the objections raised.',
    output_format: sections('Witness and parties', 'Topics covered', 'Key testimony', 'Admissions', 'Objections'),
    enabled: true,
  },
  {
    slug: 'client-meeting',
    name: 'Client meeting (legal)',
    description: 'A lawyer-client meeting: facts, client goals, advice given and next steps.',
    category: 'legal',
    system_prompt: `You are a legal assistant writing confidential notes of lawyer-client meetings. ${FACTS_ONLY}`,
    template_prompt:
      "Write notes of this client meeting: the facts the client described, the client's goals and concerns, the advice given, documents requested, deadlines mentioned, and the next steps for each side.",
    output_format: sections('Facts described', 'Client goals and concerns', 'Advice given', 'Documents and deadlines', 'Next steps'),
    enabled: true,
  },
];
