import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { CODE_RATE_WINDOW_SECONDS } from '../../shared/config';
import { GATEWAY_RESPONSES } from '../../shared/http/gateway-responses';
import { CORS_EXPOSED_HEADERS, SECURITY_HEADERS, anyOrigin } from '../../shared/http/headers';
import { versionedPaths } from '../../shared/routes';

export interface CodeRateLimitWafProps {
  stage: Stage;
  /** Path prefix of the protected routes, e.g. `/api/verify-code/`; its versioned alias is included. */
  pathPrefix: string;
  requestsPer5MinutesPerIp: number;
  metricPrefix: string;
  /** CORS_ORIGINS: the 429 must carry CORS, or a browser app sees an opaque network error. */
  corsOrigins: readonly string[];
}

/**
 * The rate rule counts over CODE_RATE_WINDOW_SECONDS, and an IP stays blocked until its count in it
 * falls below the limit: at most one window, by then the requests that tripped the limit have left it.
 */
export const WAF_RETRY_AFTER_SECONDS = CODE_RATE_WINDOW_SECONDS;
/** Set by the rate rule on the requests of an IP over the limit; the blocking rules read it. */
export const RATE_EXCEEDED_LABEL = 'captioning:code-rate-exceeded';

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
 * throttle: 429 with the contract's body, `Retry-After` and CORS. Sampled requests stay off: they
 * would keep headers.
 *
 * A WAF response cannot echo the request's Origin, so the rate rule only counts and labels, and
 * the blocking rules after it answer: one per allowed origin (matching the Origin header, naming
 * it in Access-Control-Allow-Origin), then one for everything else (`*`, or no CORS header for an
 * origin that is not allowed, as the handlers do).
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
    const common = {
      ...Object.fromEntries(Object.entries(SECURITY_HEADERS).filter(([name]) => name !== 'Content-Type')),
      'Retry-After': String(WAF_RETRY_AFTER_SECONDS),
      'Access-Control-Expose-Headers': CORS_EXPOSED_HEADERS,
    };
    const block = (headers: Record<string, string>) => ({
      block: {
        customResponse: {
          responseCode: GATEWAY_RESPONSES.THROTTLED.status,
          customResponseBodyKey: 'THROTTLED',
          responseHeaders: Object.entries({ ...common, ...headers }).map(([name, value]) => ({ name, value })),
        },
      },
    });
    const overLimit = { labelMatchStatement: { scope: 'LABEL', key: RATE_EXCEEDED_LABEL } };
    const origins = anyOrigin(props.corsOrigins) ? [] : props.corsOrigins;

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
          action: { count: {} },
          ruleLabels: [{ name: RATE_EXCEEDED_LABEL }],
          statement: {
            rateBasedStatement: {
              limit: props.requestsPer5MinutesPerIp,
              evaluationWindowSec: CODE_RATE_WINDOW_SECONDS,
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
        ...origins.map((origin, index) => ({
          name: `CodeRequestsPerIpOrigin${index + 1}`,
          priority: index + 1,
          action: block({ 'Access-Control-Allow-Origin': origin, Vary: 'Origin' }),
          statement: {
            andStatement: {
              statements: [
                overLimit,
                {
                  byteMatchStatement: {
                    fieldToMatch: { singleHeader: { Name: 'origin' } },
                    positionalConstraint: 'EXACTLY',
                    searchString: origin,
                    textTransformations: [{ priority: 0, type: 'NONE' }],
                  },
                },
              ],
            },
          },
          visibilityConfig: visibility(`CodeRequestsPerIpOrigin${index + 1}`),
        })),
        {
          name: 'CodeRequestsPerIpBlocked',
          priority: origins.length + 1,
          action: block(origins.length === 0 ? { 'Access-Control-Allow-Origin': '*' } : { Vary: 'Origin' }),
          statement: overLimit,
          visibilityConfig: visibility('CodeRequestsPerIpBlocked'),
        },
      ],
    });
    new CfnWebACLAssociation(this, 'Association', {
      resourceArn: props.stage.stageArn,
      webAclArn: this.webAcl.attrArn,
    });
  }
}
