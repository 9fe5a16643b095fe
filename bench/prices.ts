/**
 * Public AWS list prices the cost model uses, stated once. Change them here when AWS
 * changes them; the bench writes them, with their region and date, into the README.
 */
export const PRICES = {
  region: 'us-east-1',
  /** When these list prices were read from the AWS pricing pages. */
  asOf: '2025-01-31',
  /** API Gateway REST API, per million requests (first 333 million a month). */
  restApiPerMillion: 3.5,
  /** API Gateway HTTP API, per million requests of up to 512 KB (first 300 million a month). */
  httpApiPerMillion: 1.0,
  /** Lambda, per million invocations (ARM64 and x86 alike). */
  lambdaRequestsPerMillion: 0.2,
  /** Lambda on ARM64 (Graviton), per GB-second (first 7.5 billion GB-seconds a month). */
  lambdaArm64PerGbSecond: 0.0000133334,
  /** DynamoDB on-demand (standard table class), per million read request units. */
  dynamodbReadPerMillion: 0.125,
  /** DynamoDB on-demand (standard table class), per million write request units. */
  dynamodbWritePerMillion: 0.625,
} as const;
