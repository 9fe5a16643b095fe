import { deleteProjectPets } from '../../../lambda/store/pet-removal';
import { PetRepository } from '../../../lambda/store/pet-repository';
import { LOCAL_TABLE_NAMES } from '../../../local/local-tables';
import { startTestStore, type TestStore } from '../../support/embedded-store';

/** The smoke test's cleanup of its throwaway project's pets, against the embedded store. */

let store: TestStore;
let pets: PetRepository;

beforeAll(async () => {
  store = await startTestStore();
  pets = new PetRepository(store.documents, LOCAL_TABLE_NAMES.pets);
});
afterAll(() => store.close());

describe('deleteProjectPets', () => {
  it("deletes every pet of the project, of every status, and no other project's", async () => {
    const statuses = ['available', 'pending', 'sold'] as const;
    const doomed = await Promise.all(
      Array.from({ length: 30 }, (_, index) =>
        pets.create('smoke-1', { name: `pet ${index}`, categoryId: 1, status: statuses[index % 3] }),
      ),
    );
    const kept = await pets.create('acme', { name: 'Rex', categoryId: 1 });

    expect(await deleteProjectPets(store.documents, LOCAL_TABLE_NAMES.pets, 'smoke-1')).toBe(doomed.length);

    expect((await pets.list('smoke-1', { limit: 100 })).pets).toEqual([]);
    for (const pet of doomed) expect(await pets.get('smoke-1', pet.id)).toBeUndefined();
    expect(await pets.get('acme', kept.id)).toEqual(kept);
    expect(await deleteProjectPets(store.documents, LOCAL_TABLE_NAMES.pets, 'smoke-1')).toBe(0);
  });
});
