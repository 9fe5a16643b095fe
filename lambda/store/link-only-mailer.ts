import type { InvitationMailer } from '../core/invitations';
import { log } from '../shared/observability';

/**
 * The mailer of a console without email delivery: nothing is sent, and the inviter copies the
 * link the console shows. The log says that an invitation went unsent (never its link: it
 * carries the secret).
 */
export function linkOnlyMailer(): InvitationMailer {
  return {
    send: async (message) => {
      log().info('invitation not emailed: the inviter copies its link', { project: message.project });
    },
  };
}
