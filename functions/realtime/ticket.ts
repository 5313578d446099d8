import { endpoint } from '../../shared/http/endpoint';
import { issueTicket } from '../../shared/realtime/realtime-service';

/** A single-use, 60-second ticket that opens the live channel for the caller's session (docs/realtime.md). */
export const handler = endpoint('POST /api/realtime/ticket', {
  response: 'realtimeTicketSchema',
  docs: {
    summary: 'A ticket for the live channel',
    description:
      'Open `url` (a WebSocket) within 60 seconds: the service sends `{"type":"changes"}` whenever the account\'s records change, and the app pulls the change feed. The ticket opens one connection of this session, once; it is stored only as a hash. A connection whose session ends is closed with code 4001.',
  },
  run: ({ caller, headers }, ctx) => issueTicket(ctx, caller, headers.Host ?? headers.host),
});
