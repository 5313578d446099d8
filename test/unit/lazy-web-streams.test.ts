import { Readable } from 'node:stream';
import { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { describe, expect, it } from 'vitest';
import { ReadableStream } from '../../infra/bundling/lazy-web-streams';

/** The stand-in the Lambda bundles get for `node:stream/web` (infra/bundling/options.ts). */
describe('lazy web streams', () => {
  it('answers instanceof as the real ReadableStream does', () => {
    expect(new NodeReadableStream() instanceof ReadableStream).toBe(true);
    expect(Readable.from(['a']) instanceof ReadableStream).toBe(false);
    expect({ getReader() {} } instanceof ReadableStream).toBe(false);
    expect(('text' as unknown) instanceof ReadableStream).toBe(false);
  });

  it('constructs real streams that can be read', async () => {
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue('caption');
        controller.close();
      },
    });
    expect(stream).toBeInstanceOf(NodeReadableStream);
    const chunks: string[] = [];
    for await (const chunk of stream as unknown as AsyncIterable<string>) chunks.push(chunk);
    expect(chunks).toEqual(['caption']);
  });
});
