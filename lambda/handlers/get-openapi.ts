import document from '../../openapi.json';
import { JSON_HEADERS } from '../api/http';
import { apiHandler } from '../middleware/api-handler';

/** Bundled into the function by esbuild: nothing is read from disk at run time. */
const body = JSON.stringify(document);

/** `GET /openapi.json`: the published interface, without an API key but rate limited like any request. */
export const handler = apiHandler('getOpenApi', async () => ({
  statusCode: 200,
  headers: { ...JSON_HEADERS },
  body,
}));
