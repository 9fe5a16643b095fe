import { Stack } from 'aws-cdk-lib';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { PublicHostedZone } from 'aws-cdk-lib/aws-route53';
import { EmailIdentity, Identity } from 'aws-cdk-lib/aws-ses';
import { Construct } from 'constructs';
import { RUNTIME_ENV } from '../../lambda/shared/runtime-env';
import type { PlatformAddressConfig } from '../config/platform';

/** The local part of the invitations' sender: `invitations@<platform domain>`. */
export const INVITATION_SENDER_LOCAL_PART = 'invitations';

/** The invitations' sender address. */
export function invitationSender(platformDomain: string): string {
  return `${INVITATION_SENDER_LOCAL_PART}@${platformDomain}`;
}

/** Properties of {@link InvitationEmail}. */
export interface InvitationEmailProps {
  /** The platform domain and its public zone: the identity is the domain, its DKIM records go in the zone. */
  readonly platform: PlatformAddressConfig;
}

/**
 * Email of invitations (issue 27): an SES domain identity of the platform domain, verified by
 * the Easy DKIM records CDK writes in the platform zone (three CNAMEs), so that mail from
 * `invitations@<platform domain>` is signed and passes DMARC. SES starts in its sandbox: the
 * account's production access is a runbook step (doc/deploying.md). {@link grantSend} lets a
 * function send from that one address through that one identity.
 */
export class InvitationEmail extends Construct {
  /** The SES identity of the platform domain. */
  public readonly identity: EmailIdentity;
  /** `invitations@<platform domain>`. */
  public readonly sender: string;
  private readonly identityArn: string;

  constructor(scope: Construct, id: string, props: InvitationEmailProps) {
    super(scope, id);
    const { domain, hostedZoneId } = props.platform;
    const zone = PublicHostedZone.fromPublicHostedZoneAttributes(this, 'PlatformZone', {
      hostedZoneId,
      zoneName: domain,
    });
    this.identity = new EmailIdentity(this, 'Identity', { identity: Identity.publicHostedZone(zone) });
    this.sender = invitationSender(domain);
    this.identityArn = Stack.of(this).formatArn({
      service: 'ses',
      resource: 'identity',
      resourceName: domain,
    });
  }

  /**
   * Lets `grantee` send (SES v2 `SendEmail`) through the platform domain's identity, and only as
   * the invitations' sender: `ses:FromAddress` pins the address.
   */
  grantSend(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['ses:SendEmail'],
        resources: [this.identityArn],
        conditions: { StringEquals: { 'ses:FromAddress': this.sender } },
      }),
    );
  }

  /**
   * Makes `fn` email invitations: the send grant, and INVITATION_SENDER, which turns its SES
   * mailer on (lambda/store/invitation-mailer-from-environment.ts).
   */
  sendFrom(fn: LambdaFunction): void {
    this.grantSend(fn);
    fn.addEnvironment(RUNTIME_ENV.invitationSender, this.sender);
  }
}
