import { startTestStore } from '../test/support/embedded-store';
import { measureHourBoundaryCost, measureLimiterCost } from './limiter-cost';
import { measureUsageViewCost } from './usage-view-cost';

/**
 * The limiter's part of the bench alone (`npx tsx bench/limiter-run.ts`): its write and read
 * figures on the embedded store, printed as JSON, without the rest of `npm run bench`.
 */
async function main(): Promise<void> {
  const store = await startTestStore();
  try {
    const cost = await measureLimiterCost(store.documents);
    const figures = [
      ...cost.figures,
      ...(await measureHourBoundaryCost(store.documents)),
      ...(await measureUsageViewCost(store.store.endpoint, 'bench-view')),
    ];
    for (const { name, value, unit, target, description } of figures) {
      if (name.includes('Units')) console.log(`  ${description}`);
      console.log(
        `${name}\t${value} ${unit}${target ? `\t(target ${target.op} ${target.limit}: ${target.met ? 'met' : 'NOT met'})` : ''}`,
      );
    }
    console.log(`admitted ${cost.admitted.count}, refused ${cost.refused.count}`);
  } finally {
    await store.close();
  }
}

void main();
