/**
 * Scoring with NIST sclite (Debian `sctk`) when it is installed, to check the project's own
 * WER (src/engines/quality/wer.ts) against the standard tool on the same hypotheses. Both
 * sides get the same normalization first (`normalizeWords`: lowercase, punctuation other
 * than apostrophes removed), so any difference is in the alignment, not in the text.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { normalizeWords } from '../../src/engines/quality/wer.js';

const SCTK = ['/usr/bin/sctk', '/usr/lib/sctk/bin/sclite'];

export interface Scored {
  reference: string;
  hypothesis: string;
}

/** sclite's total word error rate (Sum/Avg "Err", %) over `pairs`, or null when sctk is absent. */
export function scliteWer(pairs: Scored[]): number | null {
  const bin = SCTK.find((p) => existsSync(p));
  if (!bin || pairs.length === 0) return null;
  const dir = mkdtempSync(join(tmpdir(), 'parley-sclite-'));
  try {
    // trn format: words, then the utterance id in parentheses ("speaker_utterance").
    const trn = (pick: (p: Scored) => string) =>
      `${pairs.map((p, i) => `${normalizeWords(pick(p)).join(' ')} (bench_${String(i).padStart(4, '0')})`).join('\n')}\n`;
    writeFileSync(
      join(dir, 'ref.trn'),
      trn((p) => p.reference),
    );
    writeFileSync(
      join(dir, 'hyp.trn'),
      trn((p) => p.hypothesis),
    );
    const args = ['-r', join(dir, 'ref.trn'), 'trn', '-h', join(dir, 'hyp.trn'), 'trn', '-i', 'rm', '-o', 'sum', 'stdout'];
    const out = execFileSync(bin, bin.endsWith('sctk') ? ['sclite', ...args] : args, { encoding: 'utf8' });
    const sum = /\|\s*Sum\/Avg\s*\|[^|]*\|\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)/.exec(out);
    return sum ? Number(sum[5]) : null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
