import { ApiError } from '../api/api-error';
import { headerCount, headerValue, jsonResponse, versionBaseUrl } from '../api/http';
import {
  createPetIdempotently,
  type IdempotencyStore,
  parseIdempotencyKey,
  type ReservedPetWriter,
} from '../core/idempotency';
import type { NewPet, Pet, PetStore } from '../core/pet';
import { apiHandler, type ApiLambdaHandler, type OperationDependencies } from '../middleware/api-handler';

export interface CreatePetDependencies extends OperationDependencies {
  readonly pets: PetStore & ReservedPetWriter;
  /** The records of Idempotency-Keys (per project, remembered 24 hours). */
  readonly idempotencyKeys: IdempotencyStore;
}

/** The request header that makes a create idempotent (IETF draft-ietf-httpapi-idempotency-key-header). */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/**
 * `POST /pets`: stores a new pet and answers 201 with it and its `Location`. With an
 * `Idempotency-Key`, a retry of the same request answers the first one's 201 again
 * (`Idempotent-Replayed: true`) instead of creating a second pet.
 */
export function createPet({ pets, idempotencyKeys, ...stack }: CreatePetDependencies): ApiLambdaHandler {
  return apiHandler<NewPet>(
    'createPet',
    async (event) => {
      const sent = headerCount(event, IDEMPOTENCY_KEY_HEADER);
      if (sent > 1) {
        throw new ApiError(
          'invalid_idempotency_key',
          `Send one ${IDEMPOTENCY_KEY_HEADER} header, not ${sent}.`,
        );
      }
      const field = headerValue(event.headers, IDEMPOTENCY_KEY_HEADER);
      let pet: Pet;
      let replayed = false;
      if (field === undefined) {
        pet = await pets.create(event.project, event.jsonBody);
      } else {
        const key = parseIdempotencyKey(field);
        const outcome = await createPetIdempotently(event.project, key, event.jsonBody, {
          store: idempotencyKeys,
          pets,
          clock: stack.clock,
        });
        pet = outcome.pet;
        replayed = outcome.outcome === 'replayed';
      }
      return jsonResponse(201, pet, {
        Location: `${versionBaseUrl(event)}/pets/${pet.id}`,
        ...(replayed ? { 'Idempotent-Replayed': 'true' } : {}),
      });
    },
    stack,
  );
}
