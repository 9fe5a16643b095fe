/** The pet resource and its rules, free of HTTP and of storage. */

export const PET_STATUSES = ['available', 'pending', 'sold'] as const;

export type PetStatus = (typeof PET_STATUSES)[number];

/** Status of a pet created without one: a pet put up in a store is for sale until said otherwise. */
export const DEFAULT_PET_STATUS: PetStatus = 'available';

/** Request body of `createPet`. */
export interface NewPet {
  name: string;
  categoryId: number;
  status?: PetStatus;
}

/** A stored pet as the API returns it. */
export interface Pet {
  id: number;
  name: string;
  categoryId: number;
  status: PetStatus;
}

export function isPetStatus(value: unknown): value is PetStatus {
  return typeof value === 'string' && (PET_STATUSES as readonly string[]).includes(value);
}

/** The pet a valid NewPet becomes once it has an id. */
export function petFrom(id: number, newPet: NewPet): Pet {
  return {
    id,
    name: newPet.name,
    categoryId: newPet.categoryId,
    status: newPet.status ?? DEFAULT_PET_STATUS,
  };
}

/** One page of a project's pets: what `listPets` asks the store for. */
export interface ListPetsQuery {
  limit: number;
  status?: PetStatus;
  /** Return only pets with a larger id (the previous page's last id). */
  afterId?: number;
}

export interface PetPage {
  pets: Pet[];
  /** True when at least one more pet follows this page. */
  hasMore: boolean;
}

/** What the operations need of pet storage; every read and write is scoped to one project. */
export interface PetStore {
  /** Stores a new pet under a fresh id, never overwriting another. */
  create(project: string, newPet: NewPet): Promise<Pet>;
  /** One pet of the project; another project's pet is undefined, exactly like a missing one. */
  get(project: string, id: number): Promise<Pet | undefined>;
  /** One page of the project's pets in ascending id order. */
  list(project: string, query: ListPetsQuery): Promise<PetPage>;
}
