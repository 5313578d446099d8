import { serveDeployedBundles } from '../support/local-api';
// What ships, through the same suite as the sources: every operation of the document, the
// authorizer and the scheduled jobs, answered by the bundles `cdk synth` builds (defines,
// conditions, the replaced credential chain), on the Lambda runtime's Node, each function with the
// environment its template gives it, against DynamoDB Local and the stand-ins of Secrets Manager,
// SES and SNS (npm run start:deployed, docs/local-and-aws.md).
serveDeployedBundles();
await import('./openapi-conformance.test');
