import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { isOutputClosed, outputClosed } from './closed-output.js';

const epipe = () => Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });

describe('outputClosed', () => {
  it('aborts once a stream fails with EPIPE, and takes that and later errors of it', () => {
    const stdout = new EventEmitter();
    const stderr = new EventEmitter();
    const signal = outputClosed([stdout, stderr]);
    expect(signal.aborted).toBe(false);
    // Without a listener, emitting 'error' throws: that is the crash of `| head`.
    expect(() => stdout.emit('error', epipe())).not.toThrow();
    expect(signal.aborted).toBe(true);
    expect(isOutputClosed(signal.reason)).toBe(true);
    expect((signal.reason as Error).name).toBe('AbortError');
    const destroyed = Object.assign(new Error('write after destroy'), {
      code: 'ERR_STREAM_DESTROYED',
    });
    expect(() => stdout.emit('error', destroyed)).not.toThrow();
  });

  it('watches a stream once, however many times it is asked; other errors still throw', () => {
    const stream = new EventEmitter();
    const first = outputClosed([stream]);
    const second = outputClosed([stream]);
    expect(stream.listenerCount('error')).toBe(1);
    expect(() => stream.emit('error', Object.assign(new Error('EIO'), { code: 'EIO' }))).toThrow(
      'EIO',
    );
    stream.emit('error', epipe());
    expect([first.aborted, second.aborted]).toEqual([true, true]);
  });

  it('is not the reason of any other abort', () => {
    const c = new AbortController();
    c.abort();
    expect(isOutputClosed(c.signal.reason)).toBe(false);
    expect(isOutputClosed(new DOMException('interrupted', 'AbortError'))).toBe(false);
  });
});
