import { composeCatchAll } from '../composition/api';
import { now } from '../shared/clock';
import { rateLimitStoreFromEnv } from '../store/from-environment';

/** The catch-all function: its counters from the stack's environment. */
export const handler = composeCatchAll({ counters: rateLimitStoreFromEnv(), clock: now });
