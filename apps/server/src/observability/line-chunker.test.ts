import { describe, expect, it } from 'vitest';
import { type ChunkSink, LineChunker } from './line-chunker.ts';

/** A sink that records what reaches it and how it was asked to flush. */
function recordingSink(): ChunkSink & { chunks: string[]; flushes: string[] } {
  const chunks: string[] = [];
  const flushes: string[] = [];
  return {
    chunks,
    flushes,
    write: (chunk) => chunks.push(chunk),
    flush: (callback) => {
      flushes.push('flush');
      callback?.();
    },
    flushSync: () => flushes.push('flushSync'),
  };
}

describe('LineChunker', () => {
  it('hands lines over only once a chunk reaches minLength, in order and whole', () => {
    const sink = recordingSink();
    const chunker = new LineChunker(sink, 10);
    chunker.write('abcd\n');
    chunker.write('efgh');
    expect(sink.chunks).toEqual([]);
    chunker.write('ij\n');
    expect(sink.chunks).toEqual(['abcd\nefghij\n']);
    chunker.write('k\n');
    expect(sink.chunks).toEqual(['abcd\nefghij\n']);
  });

  it('flush hands over a short chunk, then flushes the sink and calls back', () => {
    const sink = recordingSink();
    const chunker = new LineChunker(sink, 4096);
    chunker.write('one\n');
    let called = false;
    chunker.flush(() => {
      called = true;
    });
    expect(sink.chunks).toEqual(['one\n']);
    expect(sink.flushes).toEqual(['flush']);
    expect(called).toBe(true);
  });

  it('flushSync hands over what is gathered before the sink writes synchronously', () => {
    const sink = recordingSink();
    const chunker = new LineChunker(sink, 4096);
    chunker.write('a\n');
    chunker.write('b\n');
    chunker.flushSync();
    expect(sink.chunks).toEqual(['a\nb\n']);
    expect(sink.flushes).toEqual(['flushSync']);
  });

  it('hands over nothing when nothing is gathered', () => {
    const sink = recordingSink();
    const chunker = new LineChunker(sink, 1);
    chunker.flushSync();
    chunker.flush();
    expect(sink.chunks).toEqual([]);
    expect(sink.flushes).toEqual(['flushSync', 'flush']);
  });
});
