import { jsonResponse, versionBaseUrl } from '../api/http';
import type { NewPet } from '../domain/pet';
import { apiHandler } from '../middleware/api-handler';
import { petRepositoryFromEnv } from '../store/pets';

const pets = petRepositoryFromEnv();

/** `POST /pets`: stores a new pet and answers 201 with it and its `Location`. */
export const handler = apiHandler<NewPet>('createPet', async (event) => {
  const pet = await pets.create(event.project, event.jsonBody);
  return jsonResponse(201, pet, { Location: `${versionBaseUrl(event)}/pets/${pet.id}` });
});
