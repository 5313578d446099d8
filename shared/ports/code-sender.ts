export type CodeChannel = 'email' | 'sms';

/** A verification message, rendered and ready to deliver as it is. */
export interface CodeMessage {
  channel: CodeChannel;
  /** Normalised e-mail address or E.164 phone number. */
  target: string;
  code: string;
  locale: string;
  subject: string;
  text: string;
}

/** Delivers verification messages; SES/SNS on AWS, the dev outbox locally. */
export interface CodeSender {
  send(message: CodeMessage): Promise<void>;
}
