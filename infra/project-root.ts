import { fileURLToPath } from 'node:url';

/** The repository's root folder: tools, the stack and the benchmarks resolve paths from it. */
export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));
