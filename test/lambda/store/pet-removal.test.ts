import { deleteProjectPets } from '../../../lambda/store/pet-removal';
import { LOCAL_TABLE_NAMES } from '../../../local/local-tables';
import { usePetStore } from '../../support/pet-store';

/** The smoke test's cleanup of its throwaway project's pets, against the embedded store. */

const petStore = usePetStore();

describe('deleteProjectPets', () => {
  it("deletes every pet of the project, of every status, and no other project's", async () => {
    const statuses = ['available', 'pending', 'sold'] as const;
    const doomed = await Promise.all(
      Array.from({ length: 30 }, (_, index) =>
        petStore.pets.create('smoke-1', { name: `pet ${index}`, categoryId: 1, status: statuses[index % 3] }),
      ),
    );
    const kept = await petStore.pets.create('acme', { name: 'Rex', categoryId: 1 });

    expect(await deleteProjectPets(petStore.store.documents, LOCAL_TABLE_NAMES.pets, 'smoke-1')).toBe(
      doomed.length,
    );

    expect((await petStore.pets.list('smoke-1', { limit: 100 })).pets).toEqual([]);
    for (const pet of doomed) expect(await petStore.pets.get('smoke-1', pet.id)).toBeUndefined();
    expect(await petStore.pets.get('acme', kept.id)).toEqual(kept);
    expect(await deleteProjectPets(petStore.store.documents, LOCAL_TABLE_NAMES.pets, 'smoke-1')).toBe(0);
  });
});
