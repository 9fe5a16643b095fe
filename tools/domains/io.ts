import type { ACMClient } from '@aws-sdk/client-acm';
import type { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import type { CloudFrontClient } from '@aws-sdk/client-cloudfront';
import type { StageClients } from '../stage';

/** What a domains command is given: where it prints, and what tests replace. */
export interface DomainsCommandIo {
  readonly out: (line: string) => void;
  /** The environment (the console token, PORT); process.env by default. */
  readonly env?: NodeJS.ProcessEnv;
  /** The local API's base URL (tests); by default http://127.0.0.1:<PORT>. */
  readonly localApiUrl?: string;
  /** The local store (import, status --all); by default npm start's. */
  readonly endpoint?: string;
  /** The clock (tests). */
  readonly now?: () => Date;
  /** AWS clients to use with --stage (tests). */
  readonly stageClients?: StageClients & {
    readonly edgeCloudFormation?: CloudFormationClient;
    readonly cloudFront?: CloudFrontClient;
    readonly acm?: ACMClient;
  };
}
