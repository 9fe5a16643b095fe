import { DomainError } from './errors';
import { PAGE_LIMIT } from './limits';
import { decodeCursor } from './page-cursor';
import { isPetStatus, PET_STATUSES, type PetStatus } from './pet';

export interface ListPetsRequest {
  limit: number;
  status?: PetStatus;
  afterId?: number;
}

const LIMIT_PATTERN = /^[1-9][0-9]{0,2}$/;

/** Interprets the query parameters of `listPets`; every bad value is a 400 that names it. */
export function parseListQuery(query: Record<string, string>, cursorKey: string): ListPetsRequest {
  const request: ListPetsRequest = { limit: PAGE_LIMIT.default };
  if (query.limit !== undefined) {
    const limit = LIMIT_PATTERN.test(query.limit) ? Number(query.limit) : Number.NaN;
    if (!(limit >= PAGE_LIMIT.min && limit <= PAGE_LIMIT.max)) {
      throw new DomainError(
        'invalid_parameter',
        `limit must be an integer from ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max}, not ${JSON.stringify(query.limit)}.`,
      );
    }
    request.limit = limit;
  }
  if (query.status !== undefined) {
    if (!isPetStatus(query.status)) {
      throw new DomainError(
        'invalid_parameter',
        `status must be one of ${PET_STATUSES.join(', ')}, not ${JSON.stringify(query.status)}.`,
      );
    }
    request.status = query.status;
  }
  if (query.cursor !== undefined) {
    const decoded = decodeCursor(query.cursor, request.status, cursorKey);
    if ('problem' in decoded) {
      throw new DomainError(
        'invalid_cursor',
        decoded.problem === 'filter-mismatch'
          ? 'This cursor belongs to a listing with a different status filter; follow the Link header of the listing it came from.'
          : 'The cursor is not valid; use the cursor from a Link header unchanged.',
      );
    }
    request.afterId = decoded.cursor.afterId;
  }
  return request;
}
