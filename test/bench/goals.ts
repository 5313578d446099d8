/**
 * The benchmark goals (issue 17: measure our code, not the libraries the design card prescribes),
 * in one place for the benchmark report and the bundle test. KB = 1024 bytes. Identity functions
 * are those that parse phone numbers, take new passwords, sign tokens or check codes and refresh
 * tokens against the root secret: they carry libphonenumber-js, jose, the common-password list, the
 * Secrets Manager client and the SES/SNS clients by design. (Changing the e-mail address checks a
 * code and nothing else of the list since it stopped bundling phone parsing; logout checks a
 * refresh token.)
 */
import { routeId, routes } from '../../shared/routes';

export const KB = 1024;

export const GOALS = {
  functionBytes: 300 * KB,
  identityBytes: 420 * KB,
  // Back to 80 KB: the passkey settings took the authorizer 0.6 KB past it, and reading the
  // profile's key through `userKey` alone (not the `keys` object of every builder) won 1.1 KB back.
  authorizerBytes: 80 * KB,
  /**
   * The two functions that verify passkey ceremonies (issue 30 prescribes @simplewebauthn/server):
   * the library verifies every attestation format, so it brings @peculiar's ASN.1 and X.509
   * parsers and tsyringe, ~190 KB beyond an identity function. The other passkey routes build
   * their options without it and stay within the identity and function goals.
   */
  webauthnBytes: 640 * KB,
  // 30 KB until sign-in opened sessions (issue 13): the session service, its repository and the
  // refresh tokens add ~5 KB to the two sign-in functions, which are the largest; each domain
  // error declaring its own description (issue 18) adds ~2.5 KB to every function, and the
  // metrics port and the Powertools logger's sink (issue 16) ~2 KB. 42 KB since issues 44-46: the
  // wrapper's refusal of a body an operation does not take and of one over 1.5 MB on Lambda too
  // (issue 46), the speech and live-channel errors every function's error map carries, and their
  // key builders took the largest function (Sign in with Apple) from 41.0 to 41.5 KB; a debt to
  // win back (the errors' descriptions are the largest share, docs/performance.md).
  ownBytes: 42 * KB,
  /**
   * The two functions that issue speech credentials (issue 44): the session service and its
   * repository (metering, quota, the charge's transaction, ~10 KB) and the four providers'
   * adapters (~3.5 KB) beside what every function carries.
   */
  speechIssuerOwnBytes: 44 * KB,
  /** Cold import against the SDK-only floor (the DynamoDB document client alone). */
  coldImportRatio: 1.25,
  identityColdImportRatio: 1.35,
  /** The authorizer's cold import may exceed an empty bundle's by this much. */
  authorizerColdImportMs: 20,
  overheadRatio: 1.15,
  throughputRatio: 0.9,
  readCostRatio: 1.2,
  /** Issue 29: GET /api/users/me/summary's p50 against the slowest of the four reads it replaces at app open. */
  summaryRatio: 1.3,
  /** Issue 31: one search page's p50 against a plain list page's (limit 20), over 5 000 records. */
  searchPageRatio: 2,
  /** Issue 36: a change-feed page of 50 records against a list page of the same 50. */
  feedPageRatio: 1.3,
  /** Issue 36: saving a record with its feed entry against saving one as before the feed. */
  feedSaveRatio: 1.15,
  /** Issue 36: an up-to-date device's pull: the account check and one Query, whatever the history. */
  upToDateDynamoRequests: 2,
} as const;

/**
 * The data the functions carry, as the bundles name it, each held to a ceiling of its own instead
 * of counting against the bundle goals above, which are about code (docs/performance.md, "Library
 * data and stand-ins"): the common-password list (91 KB as a plain string) and libphonenumber-js's
 * smallest metadata (80 KB) would otherwise take an identity function 90 KB past its goal with no
 * code change, and packing them (brotli in a module) made the first request slower, not faster.
 */
export const DATA_CEILINGS: Record<string, number> = {
  'shared/identity/common-passwords.json': 95 * KB,
  'node_modules/libphonenumber-js/metadata.min.json.js': 85 * KB,
  // 15 KB until the passkey routes (issue 30) joined search and export: seven operations and four schemas more;
  // 18 KB until records synced (issue 36): If-Match, ETag, the tombstone, the change feed and its schemas.
  // 22 KB until speech sessions and the live channel (issues 44-45: five operations and their schemas)
  // and the 413 and no-body 400 listed on every operation (issue 46): 25.6 KB.
  'shared/http/openapi-document-data.ts': 27 * KB,
};

export const isData = (input: string): boolean => input in DATA_CEILINGS;

/** The own-code goal of a function by its name (a route id): the speech issuers' own, else GOALS.ownBytes. */
export const ownCodeGoal = (functionName: string): number =>
  routes.some((route) => route.speech && routeId(route) === functionName) ? GOALS.speechIssuerOwnBytes : GOALS.ownBytes;

/** Bundles that carry what an identity function carries by design (see above). */
export const IDENTITY_INPUTS = [
  /node_modules\/libphonenumber-js\//,
  /shared\/identity\/common-passwords\.json$/,
  /node_modules\/jose\//,
  /node_modules\/@aws-sdk\/client-secrets-manager\//,
];

/** Bundles that verify passkey ceremonies (see GOALS.webauthnBytes). */
export const isWebauthnBundle = (inputs: Record<string, unknown>): boolean => Object.keys(inputs).some((input) => /node_modules\/@simplewebauthn\/server\//.test(input));

export const isIdentityBundle = (inputs: Record<string, unknown>): boolean =>
  Object.keys(inputs).some((input) => IDENTITY_INPUTS.some((pattern) => pattern.test(input)));
