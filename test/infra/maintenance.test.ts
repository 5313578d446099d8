import { describe, expect, it } from 'vitest';
import { MAINTENANCE_BODY, MAINTENANCE_RETRY_AFTER_SECONDS } from '../../infra/constructs/maintenance-answer';
import { synthesizeOnce } from './synth';
import type { Resource } from './synth';

/**
 * Moving a stage deployed before the nested stacks (docs/deploying.md): CloudFormation creates
 * the area stacks' API paths before it deletes the parent's old ones, and API Gateway refuses a
 * path that exists, so the move is two deployments. The first, `-c maintenance=true`, must keep
 * everything that holds data or identity under the same logical ids (or CloudFormation would
 * replace the table and the secret), drop every route, and leave nothing the second one clashes with.
 */
const PROD = { stage: 'prod', SES_FROM_ADDRESS: 'no-reply@example.com', CORS_ORIGINS: 'https://app.example.com' };
const full = synthesizeOnce(PROD, { bundle: false });
const maintenance = synthesizeOnce({ ...PROD, maintenance: 'true' }, { bundle: false });
const parentOf = (synthesized: typeof full) => synthesized.stacks[0]!.json.Resources;
const ofType = (resources: Record<string, Resource>, type: string) => Object.entries(resources).filter(([, resource]) => resource.Type === type);

/** Every API path of a template set, from its resources' PathPart and parents (Ref of another resource, or the API root). */
function apiPaths(resources: Record<string, Resource>): Map<string, string> {
  const paths = new Map<string, string>();
  const pathOf = (id: string): string => {
    const resource = resources[id]!;
    const parent = resource.Properties.ParentId as { Ref?: string };
    const above = parent.Ref && resources[parent.Ref]?.Type === 'AWS::ApiGateway::Resource' ? pathOf(parent.Ref) : '';
    return `${above}/${resource.Properties.PathPart as string}`;
  };
  for (const [id] of ofType(resources, 'AWS::ApiGateway::Resource')) paths.set(id, pathOf(id));
  return paths;
}

describe('the maintenance step of moving a stage to nested stacks', () => {
  it('keeps every resource of the parent stack under its logical id, but what serves or watches the routes', () => {
    const during = parentOf(maintenance);
    const gone = Object.entries(parentOf(full))
      .filter(([id, resource]) => during[id]?.Type !== resource.Type)
      .map(([, resource]) => resource.Type);
    // The area stacks, the deployment of their methods, the authorizer they use (and its invoke
    // permission), and the SMS limit's metric filter and alarm on the code-send function's logs.
    expect([...new Set(gone)].sort()).toEqual([
      'AWS::ApiGateway::Authorizer',
      'AWS::ApiGateway::Deployment',
      'AWS::CloudFormation::Stack',
      'AWS::CloudWatch::Alarm',
      'AWS::Lambda::Permission',
      'AWS::Logs::MetricFilter',
    ]);
    expect(gone.filter((type) => type !== 'AWS::CloudFormation::Stack')).toHaveLength(5);
  });

  it('keeps the table, the secret, the API, its stage, the authorizer function and the WAF as they are', () => {
    const kept = ['AWS::DynamoDB::Table', 'AWS::SecretsManager::Secret', 'AWS::ApiGateway::RestApi', 'AWS::ApiGateway::Stage', 'AWS::WAFv2::WebACL', 'AWS::WAFv2::WebACLAssociation'];
    for (const type of kept) {
      const ids = ofType(parentOf(full), type).map(([id]) => id);
      expect(ids.length, type).toBeGreaterThan(0);
      expect(ofType(parentOf(maintenance), type).map(([id]) => id), type).toEqual(ids);
    }
    const authorizerFunction = full.stack.getLogicalId(full.stack.authorizerFunction.function.node.defaultChild as never);
    expect(parentOf(maintenance)[authorizerFunction]?.Type).toBe('AWS::Lambda::Function');
    // Retained as in the full stage: a mistaken step cannot delete the data either.
    const [tableId] = ofType(parentOf(full), 'AWS::DynamoDB::Table')[0]!;
    expect(parentOf(maintenance)[tableId]).toEqual(parentOf(full)[tableId]);
  });

  it('has no route: no area stack, no route function, and only the two maintenance methods', () => {
    expect(maintenance.stack.areas).toEqual([]);
    expect(ofType(maintenance.resources, 'AWS::CloudFormation::Stack')).toEqual([]);
    const functions = ofType(maintenance.resources, 'AWS::Lambda::Function').map(([id]) => id);
    expect(functions.filter((id) => !/^Authorizer|LogRetention|AWS679f53fac002430cb0da5b7982bd2287|CustomResource/i.test(id))).toEqual([]);
    const methods = ofType(maintenance.resources, 'AWS::ApiGateway::Method');
    expect(methods.map(([, method]) => method.Properties.HttpMethod)).toEqual(['ANY', 'ANY']);
    expect([...apiPaths(maintenance.resources).values()].sort()).toEqual(['/api', '/api/v1', '/api/v1/{proxy+}', '/api/{proxy+}']);
  });

  it('answers every path with 503, Retry-After and the contract\'s error body, from API Gateway alone', () => {
    for (const [, method] of ofType(maintenance.resources, 'AWS::ApiGateway::Method')) {
      expect(method.Properties.AuthorizationType).toBe('NONE');
      const integration = method.Properties.Integration;
      expect(integration.Type).toBe('MOCK');
      const [response] = integration.IntegrationResponses as { StatusCode: string; ResponseParameters: Record<string, string>; ResponseTemplates: Record<string, string> }[];
      expect(response!.StatusCode).toBe('503');
      expect(response!.ResponseParameters['method.response.header.Retry-After']).toBe(`'${MAINTENANCE_RETRY_AFTER_SECONDS}'`);
      expect(response!.ResponseParameters['method.response.header.Access-Control-Allow-Origin']).toBe("'https://app.example.com'");
      expect(JSON.parse(response!.ResponseTemplates['application/json']!)).toEqual({ code: 503, message: MAINTENANCE_BODY.message, error: 'SERVICE_UNAVAILABLE' });
    }
  });

  it('leaves no path the full stage creates again, so the second deployment adds every route beside it', () => {
    const left = new Set(apiPaths(maintenance.resources).values());
    const created = [...apiPaths(full.resources).values()].filter((path) => path !== '/api' && path !== '/api/v1');
    expect(created.length).toBeGreaterThan(40);
    expect(created.filter((path) => left.has(path))).toEqual([]);
    // The per-method throttles name routes' paths, which API Gateway refuses while they do not exist.
    const [, stage] = ofType(parentOf(maintenance), 'AWS::ApiGateway::Stage')[0]!;
    expect((stage.Properties.MethodSettings as { ResourcePath: string }[]).map((setting) => setting.ResourcePath)).toEqual(['/*']);
  });
});
