import document from '../../openapi.json';
import { JSON_HEADERS } from '../api/http';
import { apiHandler, type ApiLambdaHandler, type OperationDependencies } from '../middleware/api-handler';

/**
 * `GET /openapi.json`: the published interface, without an API key but rate limited like any
 * request. The document is bundled into the function by esbuild (nothing is read from disk at
 * run time) and serialized once, when the function is built: never at module load, so a bundle
 * that imports this module without calling it drops the document.
 */
export function getOpenApi(stack: OperationDependencies): ApiLambdaHandler {
  const body = JSON.stringify(document);
  return apiHandler(
    'getOpenApi',
    async () => ({ statusCode: 200, headers: { ...JSON_HEADERS }, body }),
    stack,
  );
}
