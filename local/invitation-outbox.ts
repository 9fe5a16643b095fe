import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { InvitationMailer, InvitationMessage } from '../lambda/core/invitations';

/**
 * Local mode's outbox (issue 27): where SES would send an invitation in AWS, local mode writes
 * it as a small HTML page, `<data dir>/outbox/<time>-<address>.html`, which the developer opens
 * in a browser and the tests read; it also keeps the messages of this run in memory (a test
 * without a data folder reads those).
 */
export interface LocalOutbox extends InvitationMailer {
  /** The folder the messages are written to; none in memory only. */
  readonly folder?: string;
  /** This run's messages, oldest first. */
  messages(): readonly InvitationMessage[];
}

/** The folder of the outbox under the data folder. */
export function outboxFolder(dataDir: string): string {
  return path.join(dataDir, 'outbox');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The message as the email's HTML body: who invites, to what, with which role, the link. */
export function invitationEmailHtml(message: InvitationMessage): string {
  const who = message.invitedBy ? escapeHtml(message.invitedBy) : 'An owner';
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Invitation to ${escapeHtml(message.project)}</title></head>
<body>
<main>
<h1>Join ${escapeHtml(message.project)} on Animal Store</h1>
<p>To: ${escapeHtml(message.to)}</p>
<p>${who} invites you to the project ${escapeHtml(message.project)} as ${escapeHtml(message.role)}.</p>
<p><a href="${escapeHtml(message.link)}">Open the invitation</a></p>
<p>It expires at ${escapeHtml(message.expiresAt)}. Sign in with ${escapeHtml(message.to)} to accept it.</p>
</main>
</body>
</html>
`;
}

/** An outbox in `folder` (made when the first message comes), or in memory only. */
export function localOutbox(folder?: string): LocalOutbox {
  const sent: InvitationMessage[] = [];
  return {
    ...(folder === undefined ? {} : { folder }),
    messages: () => [...sent],
    send: async (message) => {
      sent.push(message);
      if (folder === undefined) return;
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${message.to.replace(/[^\w.@-]/g, '_')}.html`;
      writeFileSync(path.join(folder, name), invitationEmailHtml(message), { mode: 0o600 });
    },
  };
}
