import type { MetadataJson } from 'libphonenumber-js/core';
import { unpackText } from '../packed-text';
import { PHONE_METADATA_BROTLI_BASE64 } from './phone-metadata-data';

/**
 * libphonenumber-js's smallest metadata (what `libphonenumber-js/min` bundles), carried packed and
 * unpacked on the first phone number a container parses. As the package ships it, it is an 82 KB
 * object literal that five functions parsed and built at every cold start (~3 to 5 ms), whether or
 * not a request ever held a phone number; packed it is 22 KB, and the first phone number pays
 * ~2 ms once (README "Benchmarks").
 */
let metadata: MetadataJson | undefined;

export function phoneMetadata(): MetadataJson {
  metadata ??= JSON.parse(unpackText(PHONE_METADATA_BROTLI_BASE64)) as MetadataJson;
  return metadata;
}
