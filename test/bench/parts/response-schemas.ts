// Every response schema (shared/http/schemas.ts) built with zod/mini: what each function paid at
// init before responses were shaped by their generated JSON Schema (shared/http/response-shape.ts).
import * as schemas from '../../../shared/http/schemas';

export const all = schemas;
