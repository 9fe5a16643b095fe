import type { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { ApiGatewayProjectKeys } from '../lambda/store/api-gateway-keys';
import { ListedGatewayDirectory } from '../lambda/store/api-gateway-directory';

export { GATEWAY_KEY_QUOTA, gatewayKeyQuotaMessage } from '../lambda/store/api-gateway-keys';

/**
 * The projects tool's gateway of a stack (lambda/store/api-gateway-keys.ts, shared with the
 * console function's self-service start): usage plans found by name, keys listed to delete them.
 */
export function stackProjectKeys(client: APIGatewayClient, stackName: string): ApiGatewayProjectKeys {
  return new ApiGatewayProjectKeys(client, stackName, new ListedGatewayDirectory(client, stackName));
}
