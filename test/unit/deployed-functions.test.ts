import { describe, expect, it } from 'vitest';
import { resolveTemplateValue } from '../../infra/local/deployed-functions';
import { emfCounts } from '../../infra/local/deployed';

/**
 * `npm run start:deployed`'s reading of what `cdk synth` wrote (infra/local/deployed-functions.ts)
 * and of what the functions print (infra/local/deployed.ts). The whole path, bundles included,
 * runs in test/integration/openapi-conformance-deployed.test.ts.
 */
const local = { region: 'us-east-1', account: '000000000000', tableName: 'captioning-local' };
const parent = {
  template: {
    Resources: {
      TableCD117FA1: { Type: 'AWS::DynamoDB::Table' },
      RootSecretD303C2C8: { Type: 'AWS::SecretsManager::Secret' },
      UsersArea: {
        Type: 'AWS::CloudFormation::Stack',
        Properties: { Parameters: { referenceToTableRef: { Ref: 'TableCD117FA1' }, referenceToSecretRef: { Ref: 'RootSecretD303C2C8' }, referenceToTableArn: { 'Fn::GetAtt': ['TableCD117FA1', 'Arn'] } } },
      },
    },
  },
};
const nested = {
  template: { Parameters: { referenceToTableRef: {}, referenceToSecretRef: {}, referenceToTableArn: {} }, Resources: { Fn: { Type: 'AWS::Lambda::Function' } } },
  parent: { scope: parent, resourceId: 'UsersArea' },
};

describe("a function's template environment, resolved as CloudFormation would locally", () => {
  it("follows a nested stack's parameters to the parent's table and secret", () => {
    expect(resolveTemplateValue({ Ref: 'referenceToTableRef' }, nested, local)).toBe('captioning-local');
    expect(resolveTemplateValue({ Ref: 'referenceToSecretRef' }, nested, local)).toBe('arn:aws:secretsmanager:us-east-1:000000000000:secret:RootSecretD303C2C8-local');
    expect(resolveTemplateValue({ Ref: 'referenceToTableArn' }, nested, local)).toBe('arn:aws:dynamodb:us-east-1:000000000000:table/captioning-local');
    expect(resolveTemplateValue({ 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':', { Ref: 'AWS::Region' }]] }, nested, local)).toBe('arn:aws:us-east-1');
    expect(resolveTemplateValue('debug', nested, local)).toBe('debug');
  });

  it('refuses what it cannot give a local value, rather than passing it on raw', () => {
    expect(() => resolveTemplateValue({ Ref: 'Fn' }, nested, local)).toThrow(/No local value for Ref Fn/);
    expect(() => resolveTemplateValue({ 'Fn::ImportValue': 'x' }, nested, local)).toThrow(/No local value/);
  });
});

describe("the functions' EMF lines, counted for /dev/metrics", () => {
  it("reads each metric with its dimensions, the stage's service dimension left out", () => {
    const line = JSON.stringify({
      _aws: { Timestamp: 1, CloudWatchMetrics: [{ Namespace: 'CaptioningService', Dimensions: [['service', 'method']], Metrics: [{ Name: 'SignIns', Unit: 'Count' }] }] },
      service: 'captioning-dev',
      method: 'code',
      SignIns: 1,
    });
    expect(emfCounts(line)).toEqual([{ name: 'SignIns', dimensions: { method: 'code' }, value: 1 }]);
    expect(emfCounts('{"level":"INFO","message":"request"}')).toBeUndefined();
    expect(emfCounts('not json')).toBeUndefined();
  });
});
