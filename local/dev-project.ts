import type { PlanName } from '../lambda/core/plans';

/** The project `npm start` serves (at `http://dev.localhost:<port>/v1` too). */
export const DEV_PROJECT = 'dev';

/** The development project's plan unless DEV_PROJECT_PLAN names another (the README states its numbers). */
export const DEV_PROJECT_DEFAULT_PLAN: PlanName = 'pro';
