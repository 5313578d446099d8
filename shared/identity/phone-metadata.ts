import type { MetadataJson } from 'libphonenumber-js/core';
import { packedJson } from '../packed-text';
import { PHONE_METADATA_BROTLI_BASE64 } from './phone-metadata-data';

/**
 * libphonenumber-js's smallest metadata (what `libphonenumber-js/min` bundles), carried packed and
 * unpacked when a container first parses a target that is not an e-mail address. As the package
 * ships it, it is an 82 KB object literal that five functions parsed and built at every cold start
 * (~2 ms more than now), whether or not a request held a phone number; packed it is 21 KB, and the
 * first phone number a container parses takes ~2.7 ms longer to unpack it (README "Benchmarks").
 */
export const phoneMetadata: () => MetadataJson = packedJson<MetadataJson>(PHONE_METADATA_BROTLI_BASE64);
