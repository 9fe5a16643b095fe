import { startEmbeddedDynamoDb } from '../../local/embedded-dynamodb';

/**
 * The embedded store alone, in a process of its own, for tests that crash it (SIGKILL).
 * It listens on a port the system picks and prints its endpoint: no port is chosen
 * ahead and raced for. DATA_DIR keeps the data across restarts.
 */
async function main(): Promise<void> {
  const store = await startEmbeddedDynamoDb({ port: 0, dataDir: process.env.DATA_DIR || undefined });
  console.log(`Embedded store listening at ${store.endpoint}`);
}

main().catch((error: unknown) => {
  console.error(`Could not start the store: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
