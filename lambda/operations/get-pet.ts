import { ApiError } from '../api/api-error';
import { jsonResponse } from '../api/http';
import { MAX_SAFE_ID } from '../core/limits';
import type { PetStore } from '../core/pet';
import { parsePetId } from '../core/pet-id';
import { apiHandler, type ApiLambdaHandler, type OperationDependencies } from '../middleware/api-handler';

export interface GetPetDependencies extends OperationDependencies {
  readonly pets: PetStore;
}

/** `GET /pets/{petId}` (deprecated): one pet, or 404. */
export function getPet({ pets, ...stack }: GetPetDependencies): ApiLambdaHandler {
  return apiHandler(
    'getPet',
    async (event) => {
      const raw = event.pathParameters?.petId ?? '';
      const id = parsePetId(raw);
      if (id === undefined) {
        throw new ApiError(
          'invalid_parameter',
          `petId must be an integer from 1 to ${MAX_SAFE_ID}, not ${JSON.stringify(raw)}.`,
        );
      }
      const pet = await pets.get(event.project, id);
      if (!pet) throw new ApiError('pet_not_found', `No pet has id ${id}.`);
      return jsonResponse(200, pet);
    },
    stack,
  );
}
