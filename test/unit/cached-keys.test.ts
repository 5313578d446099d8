import { describe, expect, it } from 'vitest';
import { cachedKeys, deriveKeys } from '../../shared/ports/secrets';

const FIRST = 'the first root secret, at least thirty-two characters';
const ROTATED = 'the rotated root secret, at least thirty-two characters';

/** A secret store whose value and availability the test sets, counting reads. */
function store(initial: string) {
  const state = { value: initial, down: false, reads: 0 };
  return {
    state,
    source: {
      rootSecret: async () => {
        state.reads++;
        if (state.down) throw new Error('Secrets Manager unreachable');
        return state.value;
      },
    },
  };
}

describe('keys derived from the root secret', () => {
  it('are read once within their age, shared by parallel uses, and read again after it: a rotation needs no redeploy', async () => {
    const { state, source } = store(FIRST);
    let now = 0;
    const keys = cachedKeys(source, 300_000, () => now);
    const [a, b] = await Promise.all([keys(), keys()]);
    expect(a).toBe(b);
    expect(state.reads).toBe(1);
    state.value = ROTATED;
    now = 299_999;
    expect((await keys()).tokenSigningKey).toEqual(deriveKeys(FIRST).tokenSigningKey);
    now = 300_000;
    expect((await keys()).tokenSigningKey).toEqual(deriveKeys(ROTATED).tokenSigningKey);
    expect(state.reads).toBe(2);
  });

  it('keep the keys they have while a re-read fails, and try again on the next use', async () => {
    const { state, source } = store(FIRST);
    let now = 0;
    const keys = cachedKeys(source, 1000, () => now);
    const first = await keys();
    state.down = true;
    now = 5000;
    expect(await keys()).toBe(first);
    state.down = false;
    state.value = ROTATED;
    expect((await keys()).codeHashKey).toEqual(deriveKeys(ROTATED).codeHashKey);
  });

  it('do not cache a failed first read', async () => {
    const { state, source } = store(FIRST);
    state.down = true;
    const keys = cachedKeys(source, 1000, () => 0);
    await expect(keys()).rejects.toThrow('unreachable');
    state.down = false;
    await expect(keys()).resolves.toBeDefined();
    expect(state.reads).toBe(2);
  });
});
