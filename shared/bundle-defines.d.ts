/**
 * Set by the bundler (`routeDefine` and `authorizerDefine` of infra/bundling/options.ts): `true` in
 * the bundles of routes that talk to Apple, Google or WeChat (route table `providers`), `false` in
 * every other function and the authorizer, which then carry none of the providers' settings
 * (shared/config.ts), keys (shared/ports/secrets.ts) or secrets port (shared/context.ts): esbuild
 * folds `typeof BUNDLED_PROVIDERS === 'boolean' && !BUNDLED_PROVIDERS` to `true` and drops the
 * branch (measured: the authorizer's bundle is byte for byte what it was before social sign-in).
 * Unbundled (the local server, tests) it is undeclared and everything is there.
 */
declare const BUNDLED_PROVIDERS: boolean | undefined;

/**
 * Set by the bundler (`speechSettingsOf`, infra/bundling/options.ts): `issuer` in the bundles of
 * routes with `speech` (the speech providers' addresses, keys and adapters), `quota` where the
 * speech limits are read (the other speech routes, the summary, support's view of an account),
 * `none` everywhere else and in the authorizer. Unbundled it is undeclared and everything is there.
 */
declare const BUNDLED_SPEECH: 'issuer' | 'quota' | 'none' | undefined;

/**
 * Set by the bundler (`authorizerDefine`, infra/bundling/options.ts): `true` in the authorizer only,
 * whose bundle then carries none of the settings it never reads (shared/config.ts
 * `notAuthorizerReaders`: the password hashing cost, the live channel's). Unbundled it is undeclared.
 */
declare const BUNDLED_AUTHORIZER: boolean | undefined;

/**
 * Set by the bundler (`routeDefine` and `authorizerDefine`, infra/bundling/options.ts): `false` in
 * every route's bundle and the authorizer's, which then carry none of the silent push's settings
 * (shared/config.ts `pushReaders`); the fan-out, which sends the pushes, is bundled without it.
 * Unbundled it is undeclared and everything is there.
 */
declare const BUNDLED_PUSH: boolean | undefined;
