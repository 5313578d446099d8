import { randomUUID } from 'node:crypto';
import { createServer, request as httpRequest } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CODE_LENGTH } from '../../shared/identity/codes';
import { SUPPORTED_LOCALES, renderCodeMessage } from '../../shared/identity/messages';
import type { CodeChannel, CodeMessage } from '../../shared/ports/code-sender';
import { awsJsonStandIn } from './aws-json-stand-in';
import type { AwsJsonAnswer } from './aws-json-stand-in';
import type { DevOutbox } from './dev-outbox';

/**
 * What the deployed functions call on AWS besides DynamoDB, answered on this machine for
 * `npm run start:deployed` (the functions reach them through AWS_ENDPOINT_URL_SECRETS_MANAGER,
 * AWS_ENDPOINT_URL_SES and AWS_ENDPOINT_URL_SNS, as the SDK and the authorizer's signed reads
 * honour them): Secrets Manager's GetSecretValue (AWS JSON 1.1) for the secrets the stack makes,
 * and SES's SendEmail and SNS's Publish (AWS Query) into the dev outbox, so /dev/outbox and the
 * tests read the codes as in `npm start`. A delivery the outbox is told to fail (`failNext`)
 * answers SES's or SNS's own refusal, which the SDK does not retry.
 */
export interface AwsStandIns {
  /** DynamoDB Local, through a forwarder that drops its `Date` header (see `withoutServerTime`). */
  dynamodbUrl: string;
  secretsManagerUrl: string;
  sesUrl: string;
  snsUrl: string;
  close(): Promise<void>;
}

/** Secrets by ARN (the stack passes ARNs; GetSecretValue also takes a name). */
export type StandInSecrets = Record<string, string>;

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The message's template as a pattern: the app's name any text, the code CODE_LENGTH digits. */
function templatePattern(channel: CodeChannel, locale: (typeof SUPPORTED_LOCALES)[number], part: 'subject' | 'text'): RegExp {
  const minutes = 987654321;
  const [appName, code] = ['APPNAME-7c1e', 'CODE-7c1e'];
  const rendered = renderCodeMessage(channel, locale, { appName, code, validMinutes: minutes })[part];
  const source = escape(rendered).split(appName).join('[^]+?').replace(code, `(?<code>\\d{${CODE_LENGTH}})`).replace(String(minutes), '\\d+');
  return new RegExp(`^${source}$`);
}

/** The outbox entry of a delivered message: which language's template it is, and its code. */
export function readCodeMessage(channel: CodeChannel, target: string, subject: string, text: string): CodeMessage | undefined {
  for (const locale of SUPPORTED_LOCALES) {
    const match = templatePattern(channel, locale, 'text').exec(text);
    if (match?.groups?.code && (channel === 'sms' || templatePattern(channel, locale, 'subject').test(subject))) {
      return { channel, target, code: match.groups.code, locale, subject, text };
    }
  }
  return undefined;
}

const xml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * A local clock may be moved (tests, `X-Dev-Now`), and the functions' `Date` with it
 * (infra/local/lambda-runtime/container.mjs); a service answering with its real `Date` would then
 * look minutes away, and the SDK would "correct" the skew and take the error it came with for a
 * transient one (a failed condition answered 503). Without the header the SDK samples no skew, as
 * on Lambda, whose clock is right. So DynamoDB Local is reached through this forwarder, and the
 * stand-ins send no `Date`.
 */
async function withoutServerTime(target: string): Promise<{ url: string; server: Server }> {
  const to = new URL(target);
  const server = createServer((request, response) => {
    const forwarded = httpRequest(
      { hostname: to.hostname, port: to.port, method: request.method, path: request.url, headers: request.headers },
      (answer) => {
        const headers = { ...answer.headers };
        delete headers.date;
        response.sendDate = false;
        response.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(response);
      },
    );
    forwarded.on('error', () => response.destroy());
    request.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

export async function startAwsStandIns(options: { secrets: () => StandInSecrets; outbox: DevOutbox; dynamodbEndpoint: string }): Promise<AwsStandIns> {
  const dynamodb = await withoutServerTime(options.dynamodbEndpoint);
  const secretsManager = await awsJsonStandIn((request): AwsJsonAnswer => {
    const target = String(request.headers['x-amz-target'] ?? '');
    if (target !== 'secretsmanager.GetSecretValue') {
      return { status: 400, body: { __type: 'UnknownOperationException', message: `${target} is not answered locally` } };
    }
    const id = String(request.body.SecretId ?? '');
    const secrets = options.secrets();
    const arn = Object.keys(secrets).find((candidate) => candidate === id || candidate.split(':').pop() === id);
    if (!arn) return { status: 400, body: { __type: 'ResourceNotFoundException', message: "Secrets Manager can't find the specified secret." } };
    return {
      status: 200,
      body: { ARN: arn, Name: arn.split(':').pop(), SecretString: secrets[arn], VersionId: 'local', VersionStages: ['AWSCURRENT'], CreatedDate: 0 },
    };
  });

  // SES (SendEmail) and SNS (Publish) speak AWS Query: a form body in, XML out.
  const query = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const form = new URLSearchParams(body);
      const action = form.get('Action');
      const requestId = randomUUID();
      const answer = (status: number, text: string) => {
        response.sendDate = false;
        response.writeHead(status, { 'content-type': 'text/xml' });
        response.end(text);
      };
      const refuse = (status: number, code: string, message: string) =>
        answer(status, `<ErrorResponse><Error><Type>Sender</Type><Code>${code}</Code><Message>${xml(message)}</Message></Error><RequestId>${requestId}</RequestId></ErrorResponse>`);
      let message: CodeMessage | undefined;
      let result: string;
      if (action === 'SendEmail') {
        const target = form.get('Destination.ToAddresses.member.1') ?? '';
        message = readCodeMessage('email', target, form.get('Message.Subject.Data') ?? '', form.get('Message.Body.Text.Data') ?? '');
        result = `<SendEmailResponse xmlns="http://ses.amazonaws.com/doc/2010-12-01/"><SendEmailResult><MessageId>${randomUUID()}</MessageId></SendEmailResult><ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata></SendEmailResponse>`;
      } else if (action === 'Publish') {
        message = readCodeMessage('sms', form.get('PhoneNumber') ?? '', '', form.get('Message') ?? '');
        result = `<PublishResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><PublishResult><MessageId>${randomUUID()}</MessageId></PublishResult><ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata></PublishResponse>`;
      } else {
        return refuse(400, 'InvalidAction', `${action} is not answered locally`);
      }
      if (!message) return refuse(400, 'InvalidParameterValue', 'Not a verification message of this service');
      options.outbox.send(message).then(
        () => answer(200, result),
        // What SES and SNS answer a message they will not deliver (not retried by the SDK).
        () => (action === 'SendEmail' ? refuse(400, 'MessageRejected', 'Simulated delivery failure') : refuse(400, 'InvalidParameter', 'Simulated delivery failure')),
      );
    });
  });
  await new Promise<void>((resolve) => query.listen(0, '127.0.0.1', resolve));
  const queryUrl = `http://127.0.0.1:${(query.address() as AddressInfo).port}`;

  return {
    dynamodbUrl: dynamodb.url,
    secretsManagerUrl: secretsManager.endpoint,
    sesUrl: queryUrl,
    snsUrl: queryUrl,
    close: async () => {
      await secretsManager.close();
      for (const server of [query, dynamodb.server]) {
        await new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        });
      }
    },
  };
}
