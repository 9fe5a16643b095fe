// Runs in a fresh Node.js process, as Lambda's runtime does: loads one bundled
// function, answers events with it, prints a JSON line and exits. Without a bundle
// ('-') it only reads the event and exits: the empty process that cold starts are
// measured net of. Usage: node cold-start-harness.js <bundle|-> <event.json> [warmRepeats]
const { readFileSync } = require('node:fs');

async function main() {
  const [bundle, eventFile, warm = '0'] = process.argv.slice(2);
  const { event } = JSON.parse(readFileSync(eventFile, 'utf8'));
  if (bundle === '-') process.exit(0);
  const context = {
    awsRequestId: 'bench',
    functionName: 'bench',
    getRemainingTimeInMillis: () => 10_000,
  };
  const { handler } = require(bundle);
  const result = await handler(event, context);
  const durations = [];
  for (let i = 0; i < Number(warm); i++) {
    const start = process.hrtime.bigint();
    await handler(event, context);
    durations.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  // An authorizer's answer counts as 200 only when it found the key (its store read ran).
  const status = result.statusCode ?? (result.context && result.context.authenticated === 'true' ? 200 : 401);
  process.stdout.write(`${JSON.stringify({ status, durations })}\n`);
  process.exit(0);
}

main().catch((error) => {
  process.stderr.write(`${error && error.stack}\n`);
  process.exit(1);
});
