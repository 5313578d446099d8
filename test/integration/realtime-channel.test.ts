import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHelpers } from '../support/admin';
import { startLocalApi, uniqueEmail } from '../support/local-api';
import type { LocalApi } from '../support/local-api';
import { isPoke, openChannel, refusal, ticketFor } from '../support/realtime';
import type { Channel } from '../support/realtime';
import { sampleRecord } from '../support/resources';
import { sessionHelpers } from '../support/sessions';
import type { Signed } from '../support/sessions';

/**
 * The live channel under the local server (issue 45, docs/realtime.md): tickets, the connection's
 * items, pokes to the right account only, ping, and connections closed with 4001 when their
 * session ends. Real WebSockets (the `ws` client) against the server's /realtime, DynamoDB Local.
 */
let api: LocalApi;
let helpers: ReturnType<typeof sessionHelpers>;
let admin: ReturnType<typeof adminHelpers>;
const opened: Channel[] = [];

beforeAll(async () => {
  api = await startLocalApi({ CODE_RESEND_SECONDS: '1', REFRESH_GRACE_SECONDS: '0' });
  helpers = sessionHelpers(api);
  admin = adminHelpers(api);
});
afterAll(async () => {
  for (const channel of opened) channel.close();
  await api?.close();
});

async function connect(token: string): Promise<Channel> {
  const channel = await openChannel((await ticketFor(api, token)).url);
  opened.push(channel);
  return channel;
}

const connectionItems = async (userId: number) =>
  (
    await api.db.client.send(
      new QueryCommand({ TableName: api.db.tableName, KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)', ExpressionAttributeValues: { ':pk': `USER#${userId}`, ':sk': 'RTCONN#' } }),
    )
  ).Items ?? [];

const save = async (token: string) => {
  const response = await api.request('POST', '/api/transcriptions', { token, body: sampleRecord() });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
};

const quietFor = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the live channel', () => {
  it('pokes every connection of the account within a second of a save, and never another account', async () => {
    const email = uniqueEmail('two-devices');
    const phone = await helpers.signIn(email);
    const tablet = await helpers.signIn(email);
    const stranger = await helpers.signIn(uniqueEmail('stranger'));
    const [tabletChannel, phoneChannel, strangerChannel] = await Promise.all([connect(tablet.token), connect(phone.token), connect(stranger.token)]);

    // Within a second of the save's answer (npm run bench -- --only realtime measures how soon).
    const poked = tabletChannel.next(isPoke, 1000);
    const phonePoked = phoneChannel.next(isPoke, 1000);
    await save(phone.token);
    expect(await poked).toEqual({ type: 'changes' });
    await phonePoked;
    // An edit and a deletion poke too; the other account hears nothing of any of them.
    const savedAgain = tabletChannel.next(isPoke, 1000);
    const record = await save(phone.token);
    await savedAgain;
    const edited = tabletChannel.next(isPoke, 1000);
    expect((await api.request('PATCH', `/api/transcriptions/${record.transcriptionRecordId}`, { token: phone.token, body: { recordTitle: 'Renamed' } })).status).toBe(200);
    await edited;
    const deleted = tabletChannel.next(isPoke, 1000);
    expect((await api.request('DELETE', `/api/transcriptions/${record.transcriptionRecordId}`, { token: tablet.token })).status).toBe(200);
    await deleted;
    // Every fan-out the writes started has finished; 100 ms more for a poke to cross a socket.
    await api.settled();
    await quietFor(100);
    expect(strangerChannel.messages).toEqual([]);
    // A poke carries no record data: the tablet pulls the feed and has what the phone saved.
    expect(tabletChannel.messages.every((message) => JSON.stringify(message) === '{"type":"changes"}')).toBe(true);
    const feed = await api.request('GET', '/api/transcriptions/changes', { token: tablet.token });
    expect(feed.body.changes.map((change: { type: string }) => change.type).sort()).toEqual(['delete', 'upsert']);
  });

  it('answers a ping with a pong', async () => {
    const signed = await helpers.signIn(uniqueEmail('ping'));
    const channel = await connect(signed.token);
    const pong = channel.next((message) => message.type === 'pong');
    channel.socket.send(JSON.stringify({ type: 'ping' }));
    expect(await pong).toEqual({ type: 'pong' });
  });

  it('keeps a connection item (account, session, time, TTL past 2 hours) while open, removed on close', async () => {
    const signed = await helpers.signIn(uniqueEmail('items'));
    const sessionId = (await helpers.sessions(signed.token)).body[0].sessionId;
    const channel = await connect(signed.token);
    const [item] = await connectionItems(signed.userId);
    expect(item).toMatchObject({ sessionId, connectedAt: expect.stringMatching(/Z$/) });
    const now = Math.floor(api.clock.now().getTime() / 1000);
    expect(item!.ttl).toBeGreaterThan(now + 7200);
    channel.close();
    await channel.closed;
    await expect.poll(() => connectionItems(signed.userId), { timeout: 2000 }).toEqual([]);
  });
});

describe('tickets', () => {
  it('are single use, stored only as a hash, and last 60 seconds', async () => {
    const signed = await helpers.signIn(uniqueEmail('ticket'));
    const { url, ticket, expiresAt } = await ticketFor(api, signed.token);
    expect(url).toBe(`${api.url.replace('http://', 'ws://')}/realtime?ticket=${encodeURIComponent(ticket)}`);
    expect(Date.parse(expiresAt)).toBe(Math.floor(api.clock.now().getTime() / 1000) * 1000 + 60_000);
    const stored = (
      await api.db.client.send(
        new QueryCommand({ TableName: api.db.tableName, KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)', ExpressionAttributeValues: { ':pk': `USER#${signed.userId}`, ':sk': 'RTTICKET#' } }),
      )
    ).Items!;
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(ticket.split('.').at(-1));

    const channel = await openChannel(url);
    opened.push(channel);
    const reused = await refusal(url);
    expect(reused).toMatchObject({ status: 401, body: { code: 401, error: 'REALTIME_TICKET_INVALID' } });
  });

  it('refuses an expired, forged or malformed ticket before any connection exists', async () => {
    const signed = await helpers.signIn(uniqueEmail('forged'));
    const { url, ticket } = await ticketFor(api, signed.token);
    const secret = ticket.split('.').at(-1)!;
    const forged = url.replace(secret, `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`);
    expect(await refusal(forged)).toMatchObject({ status: 401, body: { error: 'REALTIME_TICKET_INVALID' } });
    expect(await refusal(url.replace(/ticket=.*/, 'ticket=nonsense'))).toMatchObject({ status: 401 });
    expect(await refusal(url.replace(/\?ticket=.*/, ''))).toMatchObject({ status: 401 });
    // Another session's ticket with this one's secret: its hash names no item.
    expect(await refusal(url.replace(`.${signed.userId}.`, `.${signed.userId + 1}.`))).toMatchObject({ status: 401 });
    api.clock.advance(61);
    expect(await refusal(url)).toMatchObject({ status: 401, body: { error: 'REALTIME_TICKET_INVALID' } });
    expect(await connectionItems(signed.userId)).toEqual([]);
  });

  it('of a session ended since it was issued opens nothing (403 SESSION_ENDED)', async () => {
    const signed = await helpers.signIn(uniqueEmail('ended-ticket'));
    const { url } = await ticketFor(api, signed.token);
    expect((await api.request('POST', '/api/auth/logout', { token: signed.token, body: { refreshToken: signed.refreshToken } })).status).toBe(200);
    expect(await refusal(url)).toMatchObject({ status: 403, body: { error: 'SESSION_ENDED' } });
    expect(await connectionItems(signed.userId)).toEqual([]);
  });

  it('a disabled account gets no ticket and its earlier ticket no connection', async () => {
    const signed = await helpers.signIn(uniqueEmail('disabled'));
    const { url } = await ticketFor(api, signed.token);
    expect((await admin.change(signed.userId, 'disable')).status).toBe(200);
    expect(await refusal(url)).toMatchObject({ status: 403 });
    expect([401, 403]).toContain((await api.request('POST', '/api/realtime/ticket', { token: signed.token })).status);
  });
});

describe('a session that ends closes its connections with 4001', () => {
  const expectEnded = async (channel: Channel, userId: number) => {
    const { code } = await channel.closed;
    expect(code).toBe(4001);
    expect(channel.messages).toContainEqual({ type: 'session-ended', code: 4001 });
    await expect.poll(() => connectionItems(userId), { timeout: 2000 }).toEqual([]);
  };
  const twoSessions = async (label: string): Promise<[Signed, Signed]> => {
    const email = uniqueEmail(label);
    return [await helpers.signIn(email), await helpers.signIn(email)];
  };

  it('sign-out closes that session\'s connection only', async () => {
    const [ending, staying] = await twoSessions('sign-out');
    const [endingChannel, stayingChannel] = [await connect(ending.token), await connect(staying.token)];
    expect((await api.request('POST', '/api/auth/logout', { token: ending.token, body: { refreshToken: ending.refreshToken } })).status).toBe(200);
    expect((await endingChannel.closed).code).toBe(4001);
    expect(endingChannel.messages).toContainEqual({ type: 'session-ended', code: 4001 });
    await expect.poll(async () => (await connectionItems(staying.userId)).length, { timeout: 2000 }).toBe(1);
    expect(stayingChannel.socket.readyState).toBe(stayingChannel.socket.OPEN);
    const poked = stayingChannel.next(isPoke, 1000);
    await save(staying.token);
    await poked;
  });

  it('ending one session, ending the others, and refresh-token reuse', async () => {
    const [me, other] = await twoSessions('end');
    const otherId = (await helpers.sessions(me.token)).body.find((session: { current: boolean }) => !session.current).sessionId;
    const otherChannel = await connect(other.token);
    expect((await api.request('DELETE', `/api/auth/sessions/${otherId}`, { token: me.token })).status).toBe(200);
    expect((await otherChannel.closed).code).toBe(4001);

    const third = await helpers.signIn((await api.request('GET', '/api/users/me', { token: me.token })).body.email);
    const thirdChannel = await connect(third.token);
    expect((await api.request('DELETE', '/api/auth/sessions', { token: me.token })).status).toBe(200);
    expect((await thirdChannel.closed).code).toBe(4001);

    const myChannel = await connect(me.token);
    expect((await helpers.refresh(me.refreshToken)).status).toBe(200);
    // The spent token again (no grace here): reuse, the session ends.
    expect((await helpers.refresh(me.refreshToken)).status).toBe(401);
    await expectEnded(myChannel, me.userId);
  });

  it('support\'s sign-out, disable and deletion', async () => {
    for (const action of ['sign-out', 'disable', 'delete'] as const) {
      const signed = await helpers.signIn(uniqueEmail(`support-${action}`));
      const channel = await connect(signed.token);
      const response = action === 'delete' ? await admin.remove(signed.userId) : await admin.change(signed.userId, action);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      await expectEnded(channel, signed.userId);
    }
  });

  it('the owner\'s account deletion removes its connections, tickets and all', async () => {
    const signed = await helpers.signIn(uniqueEmail('delete-me'));
    const channel = await connect(signed.token);
    await ticketFor(api, signed.token);
    expect((await api.request('DELETE', '/api/users/me', { token: signed.token })).status).toBe(200);
    expect((await channel.closed).code).toBe(4001);
    const left = (
      await api.db.client.send(new QueryCommand({ TableName: api.db.tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': `USER#${signed.userId}` } }))
    ).Items;
    expect(left).toEqual([]);
  });
});

describe('the limits (REALTIME_IDLE_SECONDS, REALTIME_MAX_CONNECTION_SECONDS)', () => {
  it('closes an idle connection, and any connection at the maximum however often it pings', async () => {
    const limited = await startLocalApi({ REALTIME_IDLE_SECONDS: '1', REALTIME_MAX_CONNECTION_SECONDS: '2' });
    try {
      const signed = await sessionHelpers(limited).signIn(uniqueEmail('limits'));
      const idle = await openChannel((await ticketFor(limited, signed.token)).url);
      const pinging = await openChannel((await ticketFor(limited, signed.token)).url);
      const pinger = setInterval(() => pinging.socket.send(JSON.stringify({ type: 'ping' })), 300);
      try {
        expect(await idle.closed).toEqual({ code: 1001, reason: 'IDLE' });
        expect(pinging.socket.readyState).toBe(pinging.socket.OPEN);
        expect(await pinging.closed).toEqual({ code: 1001, reason: 'MAX_CONNECTION_TIME' });
      } finally {
        clearInterval(pinger);
      }
    } finally {
      await limited.close();
    }
  });
});
