import { GetApiKeysCommand } from '@aws-sdk/client-api-gateway';
import { GATEWAY_PAGE_LIMIT, StackUsagePlans } from './api-gateway-usage-plans';

/**
 * The projects tool's {@link GatewayDirectory}: a stack's usage plans by name, and its project
 * keys listed by name and value (to delete a project's, or those a plan change left). Apart from
 * lambda/store/api-gateway-usage-plans.ts so that no function's bundle ships the listing.
 */
export class ListedGatewayDirectory extends StackUsagePlans {
  /**
   * The name query matches prefixes (`acme` finds `acme-corp`), so names are compared whole;
   * values are usage identifiers, never secrets.
   */
  override async apiKeyIds(name: string, usageId?: string): Promise<string[]> {
    const ids: string[] = [];
    let position: string | undefined;
    do {
      const page = await this.client.send(
        new GetApiKeysCommand({ nameQuery: name, includeValues: true, position, limit: GATEWAY_PAGE_LIMIT }),
      );
      for (const item of page.items ?? []) {
        if (item.id && item.name === name && item.value === usageId) ids.push(item.id);
      }
      position = page.position;
    } while (position);
    return ids;
  }
}
