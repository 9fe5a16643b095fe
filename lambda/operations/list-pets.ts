import { jsonResponse, versionBaseUrl } from '../api/http';
import { parseListQuery } from '../core/list-query';
import { encodeCursor } from '../core/page-cursor';
import type { PetStore } from '../core/pet';
import { apiHandler, type ApiLambdaHandler, type OperationDependencies } from '../middleware/api-handler';

export interface ListPetsDependencies extends OperationDependencies {
  readonly pets: PetStore;
  /** Key that authenticates pagination cursors. */
  readonly cursorKey: string;
}

/** `GET /pets`: one page of pets in ascending id order; a `Link: rel="next"` header when more follow. */
export function listPets({ pets, cursorKey, ...stack }: ListPetsDependencies): ApiLambdaHandler {
  return apiHandler(
    'listPets',
    async (event) => {
      const request = parseListQuery(event.query, cursorKey);
      const page = await pets.list(event.project, request);
      const last = page.pets.at(-1);
      const headers: Record<string, string> = {};
      if (page.hasMore && last) {
        const next = new URLSearchParams({ limit: String(request.limit) });
        if (request.status) next.set('status', request.status);
        next.set('cursor', encodeCursor({ afterId: last.id, status: request.status }, cursorKey));
        headers.Link = `<${versionBaseUrl(event)}/pets?${next}>; rel="next"`;
      }
      return jsonResponse(200, page.pets, headers);
    },
    stack,
  );
}
