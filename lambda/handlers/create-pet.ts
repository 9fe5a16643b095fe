import { jsonResponse, versionBaseUrl } from '../api/http';
import type { NewPet } from '../domain/pet';
import { apiHandler } from '../middleware/api-handler';
import { RUNTIME_ENV, requireEnv } from '../shared/runtime-env';
import { documentClient } from '../store/dynamodb-client';
import { PetRepository } from '../store/pet-repository';

const pets = new PetRepository(documentClient(), requireEnv(RUNTIME_ENV.petsTable));

/** `POST /pets`: stores a new pet and answers 201 with it and its `Location`. */
export const handler = apiHandler<NewPet>('createPet', async (event) => {
  const pet = await pets.create(event.jsonBody);
  return jsonResponse(201, pet, { Location: `${versionBaseUrl(event)}/pets/${pet.id}` });
});
