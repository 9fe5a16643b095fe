import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { issueApiKey } from '../../lambda/core/api-key';
import { PLANS } from '../../lambda/core/plans';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { API_KEYS_TABLE, FORMER_PETS_TABLE } from '../../lambda/store/table-schema';
import { startEmbeddedDynamoDb } from '../../local/embedded-dynamodb';
import {
  createTableInput,
  LOCAL_TABLE_NAMES,
  localStoreClient,
  waitForActiveTable,
} from '../../local/local-tables';
import { startLocalMode, timeoutWithStarts } from '../support/processes';

// A test may start npm start twice over the old data (those that set their own timeout start none).
jest.setTimeout(timeoutWithStarts(2, 90_000));

/**
 * A data folder written by the release before projects (keys with a plan of their own,
 * pets of no project, the former indexes) keeps working after `npm start` of this one.
 */
describe('npm start on data from before projects', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'animal-store-upgrade-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const oldKey = issueApiKey('unused', 'old business key', new Date('2026-06-01T00:00:00Z'));
  const oldPets = [101, 102, 103].map((id) => ({ id, name: `old ${id}`, categoryId: 2, status: 'sold' }));

  beforeAll(async () => {
    const store = await startEmbeddedDynamoDb({ port: 0, dataDir });
    const admin = localStoreClient(store.endpoint);
    const documents = createDocumentClient(store.endpoint);
    try {
      await admin.send(new CreateTableCommand(createTableInput(FORMER_PETS_TABLE, LOCAL_TABLE_NAMES.pets)));
      await admin.send(
        new CreateTableCommand(
          createTableInput({ ...API_KEYS_TABLE, globalIndexes: [] }, LOCAL_TABLE_NAMES.apiKeys),
        ),
      );
      // The store answers a table's writes only once it is ACTIVE, which may be a while on a busy machine.
      await waitForActiveTable(admin, LOCAL_TABLE_NAMES.pets);
      await waitForActiveTable(admin, LOCAL_TABLE_NAMES.apiKeys);
      // Written as the former release wrote them, with raw puts.
      const keyWithoutProject: Record<string, unknown> = {
        ...oldKey.record,
        plan: 'business',
        usageId: 'former',
      };
      delete keyWithoutProject.project;
      await documents.send(new PutCommand({ TableName: LOCAL_TABLE_NAMES.apiKeys, Item: keyWithoutProject }));
      for (const pet of oldPets) {
        await documents.send(
          new PutCommand({
            TableName: LOCAL_TABLE_NAMES.pets,
            Item: {
              ...pet,
              collection: 'pets',
              createdAt: '2026-06-01T00:00:00.000Z',
              createToken: `t${pet.id}`,
            },
          }),
        );
      }
    } finally {
      documents.destroy();
      admin.destroy();
      await store.close();
    }
  }, 30_000);

  it('moves every former key and pet into project legacy on the highest former plan, once', async () => {
    const first = await startLocalMode(dataDir);
    try {
      expect(first.output()).toContain(
        'Upgrade to projects: moved 1 API key and 3 pets from before projects into project legacy (plan business',
      );
      const listed = await fetch(`${first.baseUrl}/pets?limit=10`, {
        headers: { Authorization: `Bearer ${oldKey.apiKey}` },
      });
      expect(listed.status).toBe(200);
      expect(await listed.json()).toEqual(oldPets);
      expect(listed.headers.get('ratelimit-policy')).toContain(`q=${PLANS.business.limits.perMinute};w=60`);
      // The development project sees none of them.
      const devList = await fetch(`${first.baseUrl}/pets`, {
        headers: { Authorization: `Bearer ${first.apiKey}` },
      });
      expect(await devList.json()).toEqual([]);
    } finally {
      first.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);
    }

    const second = await startLocalMode(dataDir);
    try {
      expect(second.output()).not.toContain('Upgrade to projects');
      const read = await fetch(`${second.baseUrl}/pets/101`, {
        headers: { Authorization: `Bearer ${oldKey.apiKey}` },
      });
      expect(read.status).toBe(200);
    } finally {
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
    }
  });
});
