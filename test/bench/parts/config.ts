// The settings, parsed at init as every function does on Lambda (zod/mini).
import { config } from '../../../shared/config';

export const settings = config();
