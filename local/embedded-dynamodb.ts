import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { crc32 as nativeCrc32 } from 'node:zlib';
import { createRequire } from 'node:module';
import dynalite from 'dynalite';
import dynaliteDb from 'dynalite/db';
import * as deleteItemParameters from 'dynalite/validations/deleteItem';
import * as putItemParameters from 'dynalite/validations/putItem';
import * as updateItemParameters from 'dynalite/validations/updateItem';

type CheckConditional = typeof dynaliteDb.checkConditional & { returnsItem?: true };

/**
 * DynamoDB returns the item a failed condition found when a write asks for it
 * (`ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`); dynalite predates that parameter.
 * Its condition check runs inside the item's lock with the stored item at hand, so
 * wrapping it adds the parameter with DynamoDB's semantics: the item as the failed
 * check saw it, nothing when there was no item. The rate limiter relies on it to
 * skip a read (test/local/embedded-dynamodb.test.ts).
 */
function addReturnValuesOnConditionCheckFailure(): void {
  const checkConditional: CheckConditional = dynaliteDb.checkConditional;
  if (checkConditional.returnsItem) return;
  const withItem: CheckConditional = (data, existingItem) => {
    const failure = checkConditional(data, existingItem);
    if (failure && existingItem && data.ReturnValuesOnConditionCheckFailure === 'ALL_OLD') {
      failure.body = { ...failure.body, Item: existingItem };
    }
    return failure;
  };
  withItem.returnsItem = true;
  dynaliteDb.checkConditional = withItem;
  // dynalite drops parameters its validation does not list: list this one for every conditional write.
  for (const { types } of [putItemParameters, updateItemParameters, deleteItemParameters]) {
    types.ReturnValuesOnConditionCheckFailure = { type: 'String', enum: ['ALL_OLD', 'NONE'] };
  }
}

/**
 * dynalite stamps every answer with its CRC32 (`x-amz-crc32`, as DynamoDB does) using
 * buffer-crc32, a byte-at-a-time JavaScript loop that cost a few per cent of each local
 * call; Node's zlib computes the same checksum natively (UTF-8 of the body, as before).
 */
function useNativeCrc32(): void {
  // The copy dynalite itself requires (it reads `crc32.unsigned` at each call).
  const bufferCrc32 = createRequire(require.resolve('dynalite'))('buffer-crc32') as {
    unsigned(input: string | Buffer): number;
  };
  bufferCrc32.unsigned = (input) => nativeCrc32(input);
}

/** A running embedded DynamoDB-compatible server (dynalite). */
export interface EmbeddedDynamoDb {
  readonly endpoint: string;
  readonly port: number;
  /**
   * Stops accepting requests, lets requests in flight finish (cutting connections still
   * busy after a grace period), waits for pending writes and closes the data files.
   */
  close(): Promise<void>;
}

/** How long requests in flight may take to finish when the store closes. */
const CLOSE_GRACE_MS = 2_000;

export interface EmbeddedDynamoDbOptions {
  /** Port on 127.0.0.1; 0 picks a free one. */
  readonly port: number;
  /** Folder that keeps the data across restarts; in memory when omitted. */
  readonly dataDir?: string;
}

export async function startEmbeddedDynamoDb({
  port,
  dataDir,
}: EmbeddedDynamoDbOptions): Promise<EmbeddedDynamoDb> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  addReturnValuesOnConditionCheckFailure();
  useNativeCrc32();
  // Tables become ACTIVE at once: the simulated provisioning delay only slows start-up.
  const server = dynalite({ path: dataDir, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const actualPort = (server.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${actualPort}`,
    port: actualPort,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error?: Error) => (error ? reject(error) : resolve()));
        // Keep-alive clients under load would otherwise hold the server open indefinitely.
        setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS).unref();
      }),
  };
}
