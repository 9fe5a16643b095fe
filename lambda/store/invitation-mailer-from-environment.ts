import { SESv2Client } from '@aws-sdk/client-sesv2';
import type { InvitationMailer } from '../core/invitations';
import { optionalEnv, RUNTIME_ENV } from '../shared/runtime-env';
import { linkOnlyMailer } from './link-only-mailer';
import { sesInvitationMailer } from './ses-invitation-mailer';

// Apart from from-environment.ts: only the console function sends email, and a module every
// handler imports would bundle the SES client into all of them.

/**
 * SES in one attempt of at most 1 s to connect and 3 s to answer: the inviter waits for it, and
 * an unsent invitation still has its link.
 */
const SES_CLIENT = { maxAttempts: 1, requestHandler: { connectionTimeout: 1_000, requestTimeout: 3_000 } };

/**
 * The console's mailer: SES from INVITATION_SENDER where the stack sets it (production, which
 * has the platform domain's SES identity), the link-only mailer elsewhere.
 */
export function invitationMailerFromEnv(): InvitationMailer {
  const sender = optionalEnv(RUNTIME_ENV.invitationSender);
  return sender ? sesInvitationMailer({ client: new SESv2Client(SES_CLIENT), sender }) : linkOnlyMailer();
}
