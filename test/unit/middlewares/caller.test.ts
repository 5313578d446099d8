import { describe, expect, it } from 'vitest';
import { caller } from '../../../shared/http/middlewares/caller';
import { answer, proxyEvent } from './pipeline';

const now = new Date('2026-03-01T12:00:00Z');
const clock = { now: () => now };
const inAnHour = Math.floor(now.getTime() / 1000) + 3600;
const echo = async (_event: unknown, context: { caller?: unknown }) => ({ caller: context.caller ?? null });
const withAuthorizer = (authorizer: Record<string, unknown>) => proxyEvent({ requestContext: { requestId: 'r', authorizer } as never });

describe('caller middleware', () => {
  it('reads the caller the authorizer established (its values arrive as strings)', async () => {
    const result = await answer([caller({ bearer: true, clock })], echo)(
      withAuthorizer({ userId: '7', tokenVersion: '2', exp: String(inAnHour), sessionId: 'a'.repeat(22) }),
    );
    expect(result).toMatchObject({ status: 200, body: { caller: { userId: 7, tokenVersion: 2, expiresAt: inAnHour, sessionId: 'a'.repeat(22) } } });
  });

  it('answers 401 on a Bearer route without a caller context, or with a token past its expiry', async () => {
    const call = answer([caller({ bearer: true, clock })], echo);
    const unauthorized = { status: 401, body: { code: 401, error: 'UNAUTHORIZED' } };
    expect(await call(proxyEvent())).toMatchObject(unauthorized);
    expect(await call(withAuthorizer({ userId: 'x', tokenVersion: '1', exp: String(inAnHour) }))).toMatchObject(unauthorized);
    // A cached Allow outliving its token (beyond the clock tolerance).
    expect(await call(withAuthorizer({ userId: '7', tokenVersion: '1', exp: String(inAnHour - 7200) }))).toMatchObject(unauthorized);
  });

  it('reads no caller on a public route', async () => {
    const result = await answer([caller({ bearer: false, clock })], echo)(withAuthorizer({ userId: '7', tokenVersion: '1', exp: String(inAnHour) }));
    expect(result).toMatchObject({ status: 200, body: { caller: null } });
  });
});
