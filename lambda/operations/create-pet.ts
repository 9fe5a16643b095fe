import { jsonResponse, versionBaseUrl } from '../api/http';
import type { NewPet, PetStore } from '../domain/pet';
import { apiHandler, type ApiLambdaHandler, type OperationDependencies } from '../middleware/api-handler';

export interface CreatePetDependencies extends OperationDependencies {
  readonly pets: PetStore;
}

/** `POST /pets`: stores a new pet and answers 201 with it and its `Location`. */
export function createPet({ pets, ...stack }: CreatePetDependencies): ApiLambdaHandler {
  return apiHandler<NewPet>(
    'createPet',
    async (event) => {
      const pet = await pets.create(event.project, event.jsonBody);
      return jsonResponse(201, pet, { Location: `${versionBaseUrl(event)}/pets/${pet.id}` });
    },
    stack,
  );
}
