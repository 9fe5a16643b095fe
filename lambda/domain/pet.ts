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
