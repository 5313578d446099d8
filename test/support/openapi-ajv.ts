import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/**
 * ajv over an OpenAPI 3.1 document (its schemas are JSON Schema 2020-12, formats checked), the
 * document registered as `openapi.json`: `ajv.getSchema('openapi.json#/paths/...')`. With
 * `formats: false`, `format` is the annotation JSON Schema 2020-12 makes it by default, as many a
 * validator and generator reads it: what the document allows must not rest on `format`.
 */
export function documentAjv(document: object, { formats = true }: { formats?: boolean } = {}): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: formats });
  if (formats) addFormats(ajv);
  ajv.addSchema(document, 'openapi.json');
  return ajv;
}

/** One segment of a JSON pointer (RFC 6901): `/paths/~1devices` names the path `/devices`. */
export const pointerSegment = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

/** What `#/a/b~1c` points at in `document`. */
export const atPointer = (document: object, pointer: string): any =>
  pointer
    .slice(2)
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce((node: any, name) => node[name], document);
