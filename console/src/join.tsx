import { useEffect, useRef, useState } from 'preact/hooks';
import {
  INVITATION_FRAGMENT,
  INVITATION_REFUSED_FRAGMENT,
  type InvitationPreview,
} from '../../lambda/api/console-invitation-routes';
import { RETURN_TO_PARAMETER, SIGN_IN_START_PATH } from '../../lambda/api/console-routes';
import { CONSOLE_ERROR_CATALOGUE } from '../../lambda/api/console-error-catalogue';
import { api, messageOf } from './api';

/**
 * Joining a project by an invitation (issue 27). The link is `/console/#invitation=inv_…`: a
 * fragment, so the browser sends the token to no server but through this page's one call, which
 * opens the invitation (its project, address and role) and keeps the token in an HttpOnly cookie;
 * the page then drops it from the address bar. "Sign in and join" is a navigation to the
 * identity provider; the sign-in's callback accepts the invitation for the person it vouched
 * for, or comes back here with `#invitation-refused=<code>`.
 */

/** What the page's address asks of this page, if anything. */
export type JoinRequest =
  | { readonly kind: 'open'; readonly token: string }
  | { readonly kind: 'refused'; readonly code: string }
  | { readonly kind: 'opened' };

/** The fragment the page keeps once the token is in its cookie (a reload shows the sign-in step again). */
const OPENED_FRAGMENT = 'join';

export function joinRequestOfLocation(): JoinRequest | undefined {
  const parameters = new URLSearchParams(location.hash.replace(/^#/, ''));
  const token = parameters.get(INVITATION_FRAGMENT);
  if (token) return { kind: 'open', token };
  const code = parameters.get(INVITATION_REFUSED_FRAGMENT);
  if (code) return { kind: 'refused', code };
  return location.hash === `#${OPENED_FRAGMENT}` ? { kind: 'opened' } : undefined;
}

const SIGN_IN_TO_JOIN = `${SIGN_IN_START_PATH}?${RETURN_TO_PARAMETER}=${encodeURIComponent('/console/')}`;

/** The refusal of a code the sign-in's callback sent back, in the catalogue's words. */
function refusalText(code: string): string {
  const entry = (CONSOLE_ERROR_CATALOGUE as Record<string, { description: string } | undefined>)[code];
  return entry?.description ?? 'The invitation could not be accepted.';
}

export function Join({ request, onDone }: { request: JoinRequest; onDone: () => void }) {
  const [preview, setPreview] = useState<InvitationPreview>();
  const [refusal, setRefusal] = useState<string | undefined>(
    request.kind === 'refused' ? refusalText(request.code) : undefined,
  );
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (request.kind !== 'open') return;
    // Out of the address bar and the history at once: the cookie holds the token from here.
    history.replaceState(null, '', `#${OPENED_FRAGMENT}`);
    api
      .call('openInvitation', { body: { token: request.token } })
      .then(setPreview, (failure: unknown) => setRefusal(messageOf(failure)));
  }, []);
  // The refusal (or the invitation, once read) is where the reader starts.
  useEffect(() => {
    if (refusal !== undefined || preview !== undefined) heading.current?.focus();
  }, [refusal, preview]);
  if (refusal !== undefined) {
    return (
      <section class="join" aria-labelledby="join-heading">
        <h1 id="join-heading" ref={heading} tabIndex={-1}>
          This invitation cannot be used
        </h1>
        <p class="error" id="join-refusal">
          {refusal}
        </p>
        <p>Ask an owner or admin of the project for a new invitation.</p>
        <p>
          <a href="#overview" onClick={onDone}>
            Go to the console
          </a>
        </p>
      </section>
    );
  }
  if (request.kind === 'opened' && preview === undefined) {
    return (
      <section class="join" aria-labelledby="join-heading">
        <h1 id="join-heading" ref={heading} tabIndex={-1}>
          Join a project
        </h1>
        <p>Sign in with the invited address to accept the invitation you opened.</p>
        <p>
          <a class="button-link primary" href={SIGN_IN_TO_JOIN}>
            Sign in and join
          </a>
        </p>
      </section>
    );
  }
  if (preview === undefined) return <p>Opening the invitation…</p>;
  return (
    <section class="join" aria-labelledby="join-heading">
      <h1 id="join-heading" ref={heading} tabIndex={-1}>
        Join {preview.project}
      </h1>
      <p>
        {preview.invitedBy ?? 'An owner'} invites <strong>{preview.email}</strong> to the project{' '}
        <strong>{preview.project}</strong> as <strong>{preview.role}</strong>.
      </p>
      <p class="help">
        Sign in with {preview.email}, verified at the identity provider, to join. The invitation expires at{' '}
        {new Date(preview.expiresAt).toUTCString()}.
      </p>
      <p>
        {/* A navigation: the provider vouches for the person, and the console accepts at its return. */}
        <a class="button-link primary" href={SIGN_IN_TO_JOIN}>
          Sign in and join
        </a>
      </p>
    </section>
  );
}
