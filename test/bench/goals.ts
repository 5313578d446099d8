/** The goals of issue 6, in one place for the benchmark report and the bundle test. KB = 1024 bytes. */
export const KB = 1024;

export const GOALS = {
  functionBytes: 300 * KB,
  authorizerBytes: 50 * KB,
  // 30 KB until sign-in opened sessions (issue 13): the session service, its repository and the
  // refresh tokens add ~5 KB to the two sign-in functions, which are the largest; each domain
  // error declaring its own description (issue 18) adds ~2.5 KB to every function.
  ownBytes: 38 * KB,
  coldImportRatio: 1.15,
  /** The authorizer's cold import may exceed an empty bundle's by this much. */
  authorizerColdImportMs: 20,
  overheadRatio: 1.05,
  throughputRatio: 0.9,
  readCostRatio: 1.2,
  scryptMedianMs: 300,
} as const;
