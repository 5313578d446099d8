import { writeFileSync } from 'node:fs';
import { brotliCompressSync, constants } from 'node:zlib';

/** Brotli at its best setting, in base64, for shared/packed-text.ts `unpackText`. */
const packText = (text: string): string =>
  brotliCompressSync(Buffer.from(text, 'utf8'), {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      [constants.BROTLI_PARAM_LGWIN]: constants.BROTLI_MAX_WINDOW_BITS,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
    },
  }).toString('base64');

/**
 * Writes a generated module holding one packed text: `export const <name> = '<base64>'`, under a
 * header that says how it was made (the first line names the command that rewrites it).
 */
export function writePackedTextModule(file: string, header: readonly string[], exportName: string, text: string): number {
  const packed = packText(text);
  writeFileSync(file, `${header.map((line) => `// ${line}\n`).join('')}export const ${exportName} =\n  '${packed}';\n`);
  return packed.length;
}
