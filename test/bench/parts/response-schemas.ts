// Every response schema (shared/http/schemas.ts), as each function bundle carries them.
import * as schemas from '../../../shared/http/schemas';

export const all = schemas;
