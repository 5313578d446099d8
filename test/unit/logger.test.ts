import { afterEach, describe, expect, it } from 'vitest';
import { createLogger, maskTarget, setLogSink } from '../../shared/logging/logger';

afterEach(() => setLogSink((line) => process.stdout.write(`${line}\n`)));

describe('maskTarget', () => {
  it('keeps enough of an e-mail or phone to follow a case, never the whole', () => {
    expect(maskTarget('alice.smith@example.com')).toBe('a***@example.com');
    expect(maskTarget('+8613800138000')).toBe('+86*********00');
    expect(maskTarget('+8613800138000')).not.toContain('13800138');
    expect(maskTarget('12345')).toBe('*****');
  });
});

describe('createLogger', () => {
  it('writes one JSON object per line at or above its level', () => {
    const lines: string[] = [];
    setLogSink((line) => lines.push(line));
    const log = createLogger('info', { requestId: 'r1' });
    log.debug('hidden');
    log.info('shown', { status: 200 });
    log.child({ route: 'GET /x' }).error('failed');
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ level: 'info', message: 'shown', requestId: 'r1', status: 200 }),
      expect.objectContaining({ level: 'error', message: 'failed', requestId: 'r1', route: 'GET /x' }),
    ]);
    createLogger('silent').error('nothing');
    expect(lines).toHaveLength(2);
  });
});
