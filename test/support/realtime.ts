import { WebSocket } from 'ws';
import { expect } from 'vitest';
import type { LocalApi } from './local-api';

/** One WebSocket of the live channel, as a test watches it: its messages, its close, or its refusal. */
export interface Channel {
  socket: WebSocket;
  messages: unknown[];
  /** Resolves with the close code and reason once closed. */
  closed: Promise<{ code: number; reason: string }>;
  /** Resolves with the first message (from now on, or already received after `from`) that matches. */
  next(match?: (message: any) => boolean, timeoutMs?: number): Promise<any>;
  close(): void;
}

export async function ticketFor(api: LocalApi, token: string): Promise<{ url: string; ticket: string; expiresAt: string }> {
  const response = await api.request('POST', '/api/realtime/ticket', { token });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

/** Opens `url`; resolves once open, or rejects with `{ status, body }` when the opening is refused. */
export function openChannel(url: string): Promise<Channel> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    const messages: unknown[] = [];
    const waiters = new Set<{ match: (message: any) => boolean; resolve: (message: any) => void }>();
    let onClose: (value: { code: number; reason: string }) => void = () => undefined;
    const closed = new Promise<{ code: number; reason: string }>((done) => (onClose = done));
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as unknown;
      messages.push(message);
      for (const waiter of waiters) if (waiter.match(message)) {
        waiters.delete(waiter);
        waiter.resolve(message);
      }
    });
    socket.on('close', (code, reason) => onClose({ code, reason: String(reason) }));
    socket.on('unexpected-response', (_request, response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += String(chunk)));
      response.on('end', () => reject(Object.assign(new Error(`refused ${response.statusCode}`), { status: response.statusCode, body: text ? JSON.parse(text) : undefined })));
    });
    socket.on('error', (error) => reject(error));
    socket.on('open', () =>
      resolve({
        socket,
        messages,
        closed,
        next: (match = () => true, timeoutMs = 5000) =>
          new Promise((done, fail) => {
            const waiter = { match, resolve: done };
            waiters.add(waiter);
            setTimeout(() => {
              if (waiters.delete(waiter)) fail(new Error(`no matching message within ${timeoutMs} ms (got ${JSON.stringify(messages)})`));
            }, timeoutMs).unref();
          }),
        close: () => socket.close(),
      }),
    );
  });
}

/** The opening refused: its HTTP status and JSON error. */
export async function refusal(url: string): Promise<{ status: number; body: any }> {
  try {
    const channel = await openChannel(url);
    channel.close();
    throw new Error('the channel opened');
  } catch (error) {
    const { status, body } = error as { status?: number; body?: unknown };
    if (status === undefined) throw error;
    return { status, body };
  }
}

export const isPoke = (message: any) => message?.type === 'changes';
