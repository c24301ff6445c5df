import { writeFileSync } from 'node:fs';
import { renderErrorDocs } from '../src/platform/errors/docs.js';

writeFileSync(new URL('../docs/errors.md', import.meta.url), renderErrorDocs());
console.log('docs/errors.md written');
