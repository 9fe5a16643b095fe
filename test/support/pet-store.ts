import { PetRepository } from '../../lambda/store/pet-repository';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { startTestStore, type TestStore } from './embedded-store';

/** The store of a test file and the pet repository on its local pets table. */
export interface PetStore {
  readonly store: TestStore;
  readonly pets: PetRepository;
}

/**
 * A fresh embedded store for the test file that calls this (at its top level), started before
 * its tests and closed after them, with a PetRepository on its pets table. Read the fields in
 * the tests, not at the top level: they exist once the file's tests begin.
 */
export function usePetStore(): PetStore {
  let store: TestStore | undefined;
  let pets: PetRepository | undefined;
  beforeAll(async () => {
    store = await startTestStore();
    pets = new PetRepository(store.documents, LOCAL_TABLE_NAMES.pets);
  });
  afterAll(() => store?.close());
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the pet store starts before the first test');
    return value;
  };
  return {
    get store() {
      return started(store);
    },
    get pets() {
      return started(pets);
    },
  };
}
