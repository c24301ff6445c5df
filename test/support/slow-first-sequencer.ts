import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Runs the files known to be slow first, slowest first (test/support/slow-files.txt, from the
 * "slowest test files" table a CI log ends with). A clean clone has no vitest cache, so vitest
 * would otherwise keep the glob order, and a 5-minute file that happens to start last runs alone
 * on one worker while the other is idle: the run's tail, minutes of CI time.
 */
export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    const rank = new Map(slowFiles(root).map((file, i) => [file, i]));
    const at = (spec: TestSpecification) => rank.get(relative(root, spec.moduleId)) ?? Number.MAX_SAFE_INTEGER;
    // Array.prototype.sort is stable: files not in the list keep vitest's own order after the slow ones.
    return sorted.sort((a, b) => at(a) - at(b));
  }
}

function slowFiles(root: string): string[] {
  try {
    return readFileSync(join(root, 'test/support/slow-files.txt'), 'utf8')
      .split('\n')
      .map((l) => l.replace(/#.*/, '').trim())
      .filter(Boolean);
  } catch {
    return [];
  }
}
