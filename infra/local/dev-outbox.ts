import type { CodeMessage, CodeSender } from '../../shared/ports/code-sender';
import { isoSeconds } from '../../shared/ports/clock';
import type { Clock } from '../../shared/ports/clock';

export interface OutboxEntry {
  channel: CodeMessage['channel'];
  target: string;
  code: string;
  sentAt: string;
  locale: string;
  subject: string;
  text: string;
}

/**
 * Local mode's code sender: keeps every message as it would have been delivered, prints it on the
 * console, and lists it at GET /dev/outbox. `failNext` lets tests make a delivery fail.
 */
export class DevOutbox implements CodeSender {
  private readonly entries: OutboxEntry[] = [];
  private failures = 0;

  /**
   * `kept`: the messages of an earlier API process (npm start's reload keeps them); `onEntry` hears
   * each new one (the watch supervisor keeps them for the next process).
   */
  constructor(
    private readonly clock: Clock,
    private readonly print: boolean,
    kept: readonly OutboxEntry[] = [],
    private readonly onEntry?: (entry: OutboxEntry) => void,
  ) {
    this.entries.push(...kept);
  }

  async send(message: CodeMessage): Promise<void> {
    if (this.failures > 0) {
      this.failures--;
      throw Object.assign(new Error('Simulated delivery failure'), { name: 'SimulatedDeliveryFailure' });
    }
    const entry: OutboxEntry = { ...message, sentAt: isoSeconds(this.clock.now()) };
    this.entries.push(entry);
    this.onEntry?.(entry);
    if (this.print) console.log(`[dev outbox] ${entry.channel} to ${entry.target}: code ${entry.code}`);
  }

  /** Newest first, as the contract's /dev/outbox lists them. */
  list(target?: string): OutboxEntry[] {
    return this.entries.filter((entry) => target === undefined || entry.target === target).reverse();
  }

  failNext(count = 1): void {
    this.failures = count;
  }
}
