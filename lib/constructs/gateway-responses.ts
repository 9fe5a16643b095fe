import { GatewayResponse, type IRestApi, ResponseType } from 'aws-cdk-lib/aws-apigateway';
import { Construct } from 'constructs';
import {
  GATEWAY_ERRORS,
  GATEWAY_RESPONSE_TYPES,
  type GatewayError,
  type GatewayResponseTypeName,
  gatewayErrorTemplate,
  statusOf,
} from '../../lambda/api/gateway-errors';
import { JSON_HEADERS } from '../../lambda/api/http';

/** Properties of {@link GatewayErrorResponses}. */
export interface GatewayErrorResponsesProps {
  /** The API whose gateway responses are set. */
  readonly restApi: IRestApi;
  /**
   * How each response type answers.
   * @default GATEWAY_ERRORS
   */
  readonly errors?: Readonly<Record<GatewayResponseTypeName, GatewayError>>;
}

/**
 * Sets every gateway response type explicitly, so whatever API Gateway refuses on its
 * own still answers the spec's Error body with `status` equal to the HTTP status.
 */
export class GatewayErrorResponses extends Construct {
  constructor(scope: Construct, id: string, props: GatewayErrorResponsesProps) {
    super(scope, id);
    const errors = props.errors ?? GATEWAY_ERRORS;
    for (const type of GATEWAY_RESPONSE_TYPES) {
      const error = errors[type];
      // The service's own JSON headers, so a refusal by the gateway reads as one by the service.
      const headers: Record<string, string> = { ...JSON_HEADERS, ...error.headers };
      new GatewayResponse(this, type, {
        restApi: props.restApi,
        type: ResponseType.of(type),
        statusCode: String(statusOf(error.code)),
        responseHeaders: Object.fromEntries(
          Object.entries(headers).map(([name, value]) => [name, `'${value}'`]),
        ),
        templates: { 'application/json': gatewayErrorTemplate(error) },
      });
    }
  }
}
