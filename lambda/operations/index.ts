import type { OperationId } from '../api/routes';
import type { ApiLambdaHandler } from '../middleware/api-handler';
import { createPet, type CreatePetDependencies } from './create-pet';
import { getOpenApi } from './get-openapi';
import { getPet, type GetPetDependencies } from './get-pet';
import { listPets, type ListPetsDependencies } from './list-pets';

/** Everything some operation needs: what a process serving all of them (local mode) builds once. */
export type ServiceDependencies = ListPetsDependencies & CreatePetDependencies & GetPetDependencies;

/** Each operation of the route table, built from its dependencies (the compiler checks none is missing). */
export const OPERATIONS: Readonly<
  Record<OperationId, (dependencies: ServiceDependencies) => ApiLambdaHandler>
> = { listPets, createPet, getPet, getOpenApi };
