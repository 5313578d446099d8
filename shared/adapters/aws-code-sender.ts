import { SESClient, SendEmailCommand } from '@aws-sdk/client-ses';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { timedRequestHandler } from '../config';
import type { Config } from '../config';
import type { CodeSender } from '../ports/code-sender';

/** E-mail through SES from the configured identity; SMS through SNS as transactional messages. */
export function awsCodeSender(cfg: Config): CodeSender {
  let ses: SESClient | undefined;
  let sns: SNSClient | undefined;
  // A stalled SES or SNS fails the attempt; after the SDK's retries the send answers 503.
  const requestHandler = timedRequestHandler(cfg.AWS_CONNECT_TIMEOUT_MS, cfg.AWS_REQUEST_TIMEOUT_MS);
  return {
    async send(message) {
      if (message.channel === 'email') {
        if (!cfg.SES_FROM_ADDRESS) throw new Error('SES_FROM_ADDRESS is not set');
        ses ??= new SESClient({ region: cfg.AWS_REGION, requestHandler });
        await ses.send(
          new SendEmailCommand({
            Source: cfg.SES_FROM_ADDRESS,
            Destination: { ToAddresses: [message.target] },
            Message: {
              Subject: { Data: message.subject, Charset: 'UTF-8' },
              Body: { Text: { Data: message.text, Charset: 'UTF-8' } },
            },
          }),
        );
        return;
      }
      sns ??= new SNSClient({ region: cfg.AWS_REGION, requestHandler });
      await sns.send(
        new PublishCommand({
          PhoneNumber: message.target,
          Message: message.text,
          MessageAttributes: {
            // Transactional SMS are delivered with priority, as a sign-in code must be.
            'AWS.SNS.SMS.SMSType': { DataType: 'String', StringValue: 'Transactional' },
          },
        }),
      );
    },
  };
}
