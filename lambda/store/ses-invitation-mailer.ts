import { SendEmailCommand, type SESv2Client } from '@aws-sdk/client-sesv2';
import type { InvitationMailer, InvitationMessage } from '../core/invitations';
import { log } from '../shared/observability';

/** What {@link sesInvitationMailer} sends with. */
export interface SesInvitationMailerOptions {
  readonly client: SESv2Client;
  /** `invitations@<platform domain>`: the address the console function may send from (`ses:FromAddress`). */
  readonly sender: string;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The email's subject: the project, as plain text (SES encodes it). */
export function invitationSubject(message: InvitationMessage): string {
  return `Join ${message.project} on Animal Store`;
}

/** The plain-text body: who invites, to which project, with which role, the link and its expiry. */
export function invitationText(message: InvitationMessage): string {
  const who = message.invitedBy ?? 'An owner';
  return [
    `${who} invites you to the project ${message.project} as ${message.role}.`,
    '',
    `Open the invitation: ${message.link}`,
    '',
    `It expires at ${message.expiresAt}. Sign in with ${message.to} to accept it.`,
    '',
  ].join('\n');
}

/** The HTML body: the same words, every value escaped. */
export function invitationHtml(message: InvitationMessage): string {
  const who = message.invitedBy ? escapeHtml(message.invitedBy) : 'An owner';
  const project = escapeHtml(message.project);
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Invitation to ${project}</title></head>
<body>
<p>${who} invites you to the project ${project} as ${escapeHtml(message.role)}.</p>
<p><a href="${escapeHtml(message.link)}">Open the invitation</a></p>
<p>It expires at ${escapeHtml(message.expiresAt)}. Sign in with ${escapeHtml(message.to)} to accept it.</p>
</body>
</html>
`;
}

/**
 * Invitations emailed through SES v2 `SendEmail` (issue 27), from the platform's sender to the
 * invited address only. The invitation is stored before it is sent, and the console answers its
 * link to the inviter whatever SES says: a refusal (sandbox, suspended account, throttling, an
 * unverified identity …) is logged as the link-only mailer logs an unsent invitation, by its
 * error's name, and never with the message (its link carries the secret).
 */
export function sesInvitationMailer(options: SesInvitationMailerOptions): InvitationMailer {
  return {
    send: async (message) => {
      try {
        const answer = await options.client.send(
          new SendEmailCommand({
            FromEmailAddress: options.sender,
            Destination: { ToAddresses: [message.to] },
            Content: {
              Simple: {
                Subject: { Data: invitationSubject(message), Charset: 'UTF-8' },
                Body: {
                  Text: { Data: invitationText(message), Charset: 'UTF-8' },
                  Html: { Data: invitationHtml(message), Charset: 'UTF-8' },
                },
              },
            },
          }),
        );
        log().info('invitation emailed', { project: message.project, messageId: answer.MessageId });
      } catch (error) {
        const refusal = error instanceof Error ? error.name : 'unknown';
        log().warn('invitation not emailed: the inviter copies its link', {
          project: message.project,
          refusal,
        });
      }
    },
  };
}
