// The settings, parsed at init as every function does on Lambda (plain functions, no schema library).
import { parseConfig } from '../../../shared/config';

export const settings = parseConfig(process.env);
