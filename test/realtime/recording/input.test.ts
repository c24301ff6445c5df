/**
 * Client audio of a `pcm` session as samples (src/realtime/recording/input.ts): chunks cut
 * inside a sample are joined (no sample is lost or shifted), and audio that arrives before the
 * recording began or after it ended is dropped, not carried into the next recording's samples.
 */
import { describe, expect, it } from 'vitest';
import { AudioInput } from '../../../src/realtime/recording/input.js';

function input() {
  const got: number[] = [];
  let accepting = true;
  const i = new AudioInput(
    {
      audio: {
        liveDecoder: () => {
          throw new Error('a pcm session opens no decoder');
        },
      },
      error: (err) => {
        throw err;
      },
      accepting: () => accepting,
      samples: (pcm) => got.push(...pcm),
    },
    'pcm',
  );
  return { i, got, accept: (on: boolean) => (accepting = on) };
}

const le = (...values: number[]) => {
  const b = Buffer.alloc(values.length * 2);
  for (const [k, v] of values.entries()) b.writeInt16LE(v, k * 2);
  return b;
};

describe('pcm input of a live recording', () => {
  it('joins a sample split across chunks', () => {
    const { i, got } = input();
    const bytes = le(1, -2, 300, -32768, 32767);
    i.write(bytes.subarray(0, 3));
    i.write(bytes.subarray(3, 4));
    i.write(bytes.subarray(4, 9));
    expect(got).toEqual([1, -2, 300, -32768]);
    i.write(bytes.subarray(9));
    expect(got).toEqual([1, -2, 300, -32768, 32767]);
  });

  it('drops audio while the recording does not take it, half samples included', () => {
    const { i, got, accept } = input();
    accept(false);
    i.write(le(5, 6).subarray(0, 3));
    expect(got).toEqual([]);
    accept(true);
    i.write(le(7, 8));
    expect(got).toEqual([7, 8]);
  });
});
