import { composeGetOpenApi } from '../composition/api';
import { now } from '../shared/clock';
import { rateLimitStoreFromEnv } from '../store/from-environment';

/** The getOpenApi function: its counters from the stack's environment. */
export const handler = composeGetOpenApi({ counters: rateLimitStoreFromEnv(), clock: now });
