import { readFileSync, writeFileSync } from 'node:fs';
import { withConfigTable } from '../src/config-docs.js';

const path = new URL('../docs/configuration.md', import.meta.url);
writeFileSync(path, withConfigTable(readFileSync(path, 'utf8')));
console.log('docs/configuration.md configuration table written');
