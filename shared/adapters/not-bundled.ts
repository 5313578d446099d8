/**
 * What `#adapters/table`, `#adapters/secrets`, `#adapters/code-sender` and `#adapters/speech` resolve to in the bundle
 * of a function whose route does not need that adapter (package.json "imports", conditions from
 * `routeConditions` of infra/bundling/options.ts): nothing, so the client is not bundled.
 */
export const database = undefined;
export const secretsManagerSource = undefined;
export const awsCodeSender = undefined;
export const speechProviders = undefined;
