import document from '../../openapi.json';
import { JSON_HEADERS } from '../api/http';
import { apiHandler, type ApiLambdaHandler, type OperationDependencies } from '../middleware/api-handler';

/** Bundled into the function by esbuild: nothing is read from disk at run time. */
const body = JSON.stringify(document);

/** `GET /openapi.json`: the published interface, without an API key but rate limited like any request. */
export function getOpenApi(stack: OperationDependencies): ApiLambdaHandler {
  return apiHandler(
    'getOpenApi',
    async () => ({ statusCode: 200, headers: { ...JSON_HEADERS }, body }),
    stack,
  );
}
