/** Summary template settings: the operator's own templates. */
import { defineSection, settings } from '../platform/config/settings.js';

export const summaryTemplateSettings = defineSection({
  file: settings.optionalString(
    'PARLEY_SUMMARY_TEMPLATES_FILE',
    'JSON file of operator templates (an array of {slug, name, description, category, system_prompt, template_prompt, output_format, enabled}); a built-in slug is replaced, enabled:false hides it. Checked at start.',
  ),
});
