/**
 * The root secret read with the SDK's signer and `fetch` rather than the Secrets Manager client,
 * under the name route-adapters.ts imports: what `#adapters/secrets` resolves to for the function
 * that also bundles SES and SNS (package.json `imports`, `routeConditions`). With both clients it
 * would exceed its bundle goal (README "Benchmarks").
 */
export { signedSecretsManagerSource as secretsManagerSource } from './signed-reads';
