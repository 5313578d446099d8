import { Validations } from 'aws-cdk-lib';
import { MockIntegration, PassthroughBehavior } from 'aws-cdk-lib/aws-apigateway';
import type { IResource } from 'aws-cdk-lib/aws-apigateway';
import { Construct } from 'constructs';

/** How long the app is told to wait before it asks again: about the time the routes' stacks take to create. */
export const MAINTENANCE_RETRY_AFTER_SECONDS = 120;

/** The answer while the routes are away, in the contract's error shape. */
export const MAINTENANCE_BODY = {
  code: 503,
  message: 'The service is being updated. Try again in a few minutes.',
  error: 'SERVICE_UNAVAILABLE',
} as const;

export interface MaintenanceAnswerProps {
  /** `/api` and `/api/v1`: every path under them answers 503. */
  roots: IResource[];
  /** The stage's CORS origin when it allows one origin or every origin (`*`); browsers need it to read the 503. */
  allowOrigin?: string;
}

/**
 * What a stage answers while it moves to the nested-stack layout (`-c maintenance=true`,
 * docs/deploying.md): every method of every path under `/api` and `/api/v1` answers 503 with
 * `Retry-After`, from API Gateway itself (a mock integration: no function, no table), so the app's
 * client waits and retries, and nobody is signed out. The paths are one greedy `{proxy+}` per root,
 * which no route uses, so the routes' stacks can create their own paths beside it in the next
 * deployment, which removes it.
 */
export class MaintenanceAnswer extends Construct {
  constructor(scope: Construct, id: string, props: MaintenanceAnswerProps) {
    super(scope, id);
    const headers: Record<string, string> = {
      'method.response.header.Retry-After': `'${MAINTENANCE_RETRY_AFTER_SECONDS}'`,
      'method.response.header.Cache-Control': "'no-store'",
      ...(props.allowOrigin ? { 'method.response.header.Access-Control-Allow-Origin': `'${props.allowOrigin}'` } : {}),
    };
    const integration = new MockIntegration({
      passthroughBehavior: PassthroughBehavior.NEVER,
      requestTemplates: { 'application/json': '{"statusCode": 503}' },
      integrationResponses: [
        { statusCode: '503', responseParameters: headers, responseTemplates: { 'application/json': JSON.stringify(MAINTENANCE_BODY) } },
      ],
    });
    for (const root of props.roots) {
      const method = root.addResource('{proxy+}').addMethod('ANY', integration, {
        methodResponses: [{ statusCode: '503', responseParameters: Object.fromEntries(Object.keys(headers).map((name) => [name, true])) }],
      });
      Validations.of(method).acknowledge(
        { id: 'AwsSolutions-APIG4', reason: 'The maintenance answer is a fixed 503 from API Gateway: nothing behind it to authorise' },
        { id: 'AwsSolutions-COG4', reason: 'The maintenance answer is a fixed 503 from API Gateway: nothing behind it to authorise' },
      );
    }
  }
}
