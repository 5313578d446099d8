// Every response schema (shared/api/schemas.ts) built with zod/mini: what a function would pay at
// init to check its answers with them. Functions bundle none: their `response:` names a schema (for
// the OpenAPI generator and the type of `run`); typed mappers build the answers, nothing checks them.
import * as schemas from '../../../shared/api/schemas';

export const all = schemas;
