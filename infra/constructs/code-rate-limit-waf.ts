import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { GATEWAY_RESPONSES } from '../../shared/http/gateway-responses';
import { versionedPaths } from '../../shared/routes';

export interface CodeRateLimitWafProps {
  stage: Stage;
  /** Path prefix of the protected routes, e.g. `/api/verify-code/`; its versioned alias is included. */
  pathPrefix: string;
  requestsPer5MinutesPerIp: number;
  metricPrefix: string;
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The regex WAF matches the URI path with. On the execute-api endpoint the path WAF inspects
 * starts with the stage name (`/prod/api/...`); behind a custom domain it does not: both match.
 */
export function pathPrefixRegex(pathPrefix: string): string {
  const alternatives = versionedPaths(pathPrefix).map(escapeRegex);
  return `^(/[^/]+)?(${alternatives.join('|')})`;
}

/**
 * The gateway's per-method throttle is one bucket for all callers; this rule limits each source IP
 * on the code endpoints (each code costs an e-mail or an SMS) and answers like the gateway's own
 * throttle: 429 with the contract's body. Sampled requests stay off: they would keep headers.
 */
export class CodeRateLimitWaf extends Construct {
  readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, props: CodeRateLimitWafProps) {
    super(scope, id);
    const visibility = (metricName: string) => ({
      cloudWatchMetricsEnabled: true,
      metricName: `${props.metricPrefix}${metricName}`,
      sampledRequestsEnabled: false,
    });
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('WebAcl'),
      customResponseBodies: {
        THROTTLED: { contentType: 'APPLICATION_JSON', content: JSON.stringify(GATEWAY_RESPONSES.THROTTLED.body) },
      },
      rules: [
        {
          name: 'CodeRequestsPerIp',
          priority: 0,
          action: {
            block: { customResponse: { responseCode: GATEWAY_RESPONSES.THROTTLED.status, customResponseBodyKey: 'THROTTLED' } },
          },
          statement: {
            rateBasedStatement: {
              limit: props.requestsPer5MinutesPerIp,
              evaluationWindowSec: 300,
              aggregateKeyType: 'IP',
              scopeDownStatement: {
                regexMatchStatement: {
                  fieldToMatch: { uriPath: {} },
                  regexString: pathPrefixRegex(props.pathPrefix),
                  textTransformations: [{ priority: 0, type: 'NONE' }],
                },
              },
            },
          },
          visibilityConfig: visibility('CodeRequestsPerIp'),
        },
      ],
    });
    new CfnWebACLAssociation(this, 'Association', {
      resourceArn: props.stage.stageArn,
      webAclArn: this.webAcl.attrArn,
    });
  }
}
