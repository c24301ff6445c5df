/** A summary template (spec "Summary template" resource, plus the enabled flag operators set). */
export const CATEGORIES = ['summary', 'medical', 'legal'] as const;
export type TemplateCategory = (typeof CATEGORIES)[number];

export interface SummaryTemplate {
  slug: string;
  name: string;
  description: string | null;
  category: TemplateCategory;
  system_prompt: string;
  template_prompt: string;
  /** The section headings the summarizer fills, one Markdown heading per line. */
  output_format: string;
  enabled: boolean;
}
