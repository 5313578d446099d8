import type { MetadataJson } from 'libphonenumber-js/core';
import { packedJson } from '../packed-text';
import { PHONE_METADATA_BROTLI_BASE64 } from './phone-metadata-data';

/**
 * libphonenumber-js's smallest metadata (what `libphonenumber-js/min` bundles), carried packed and
 * unpacked when a container first parses a target that is not an e-mail address. As the package
 * ships it, it is an 82 KB object literal built at every cold start (~1.9 ms); packed it is 21 KB,
 * but the first phone number a container parses takes 3–5 ms longer. Not worth it by time: it is
 * kept because unpacked, five identity bundles exceed their 420 KB goal (README "Benchmarks",
 * "Packed data").
 */
export const phoneMetadata: () => MetadataJson = packedJson<MetadataJson>(PHONE_METADATA_BROTLI_BASE64);
