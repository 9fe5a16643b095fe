/**
 * The local OpenID provider's sign-in page: plain HTML, no script, its one stylesheet from its
 * own origin, under a CSP as strict as the console's. A form posts the email and password to
 * the interaction; a wrong pair shows the form again with the reason, tied to the fields.
 */

/** Where the page's stylesheet is served. */
export const SIGN_IN_STYLESHEET_PATH = '/interaction/sign-in.css';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/**
 * The page's CSP: nothing inline, and a form that may post only here; its redirects (the
 * provider's, then the console's callback) are form-action navigations too, so the console's
 * origins are allowed as targets.
 */
export function signInPageSecurityHeaders(formTargets: readonly string[]): Record<string, string> {
  return {
    'Content-Security-Policy': [
      "default-src 'none'",
      "style-src 'self'",
      "base-uri 'none'",
      `form-action 'self' ${formTargets.join(' ')}`,
      "frame-ancestors 'none'",
    ].join('; '),
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
  };
}

export interface SignInPage {
  /** The interaction's form target. */
  readonly action: string;
  /** The email typed last time, when the pair was wrong. */
  readonly email?: string;
  readonly error?: string;
  /** Who asks: the client's id. */
  readonly clientId: string;
}

export function signInPageHtml({ action, email, error, clientId }: SignInPage): string {
  const described = error ? 'sign-in-help sign-in-error' : 'sign-in-help';
  const invalid = error ? ' aria-invalid="true"' : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in · Animal Store local identity provider</title>
<link rel="stylesheet" href="${SIGN_IN_STYLESHEET_PATH}">
</head>
<body>
<main>
<h1>Sign in</h1>
<p id="sign-in-help">Local development provider, for <strong>${escapeHtml(clientId)}</strong>. <code>npm start</code> prints the development people and their passwords.</p>
<form method="post" action="${escapeHtml(action)}" novalidate>
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(email ?? '')}" aria-describedby="${described}"${invalid}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required aria-describedby="${described}"${invalid}>
${error ? `<p id="sign-in-error" class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<button type="submit">Sign in</button>
</form>
</main>
</body>
</html>
`;
}

/**
 * The provider's sign-out page (RP-initiated logout): `form` is the provider's own hidden form
 * (its action and anti-forgery value); the buttons submit it, to sign out of the provider or
 * stay signed in there. Either way the provider returns to the console, whose session has ended.
 */
export function signOutPageHtml(form: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign out · Animal Store local identity provider</title>
<link rel="stylesheet" href="${SIGN_IN_STYLESHEET_PATH}">
</head>
<body>
<main>
<h1>Sign out</h1>
<p>You have signed out of the console. Sign out of this local development provider too, so the next sign-in asks for a password?</p>
${form}
<div class="actions">
<button type="submit" form="op.logoutForm" name="logout" value="yes" autofocus>Sign out</button>
<button type="submit" form="op.logoutForm" class="secondary">Stay signed in here</button>
</div>
</main>
</body>
</html>
`;
}

export const SIGN_IN_STYLESHEET = `
:root { color-scheme: light; font-family: system-ui, sans-serif; line-height: 1.5; }
body { margin: 0; background: #f4f5f7; color: #1b1f24; }
main { box-sizing: border-box; max-width: 26rem; margin: 3rem auto; padding: 1.5rem; background: #fff; border: 1px solid #c9ced6; border-radius: 0.5rem; }
h1 { margin-top: 0; font-size: 1.5rem; }
form { display: grid; gap: 0.5rem; }
label { font-weight: 600; }
input { font: inherit; padding: 0.5rem; border: 1px solid #5c6470; border-radius: 0.25rem; }
input:focus, button:focus { outline: 3px solid #0b57d0; outline-offset: 2px; }
button { font: inherit; margin-top: 0.5rem; padding: 0.6rem; border: 0; border-radius: 0.25rem; background: #0b57d0; color: #fff; font-weight: 600; cursor: pointer; }
.error { margin: 0; color: #a4161a; font-weight: 600; }
.actions { display: flex; flex-wrap: wrap; gap: 0.5rem; }
.actions button { margin-top: 0; }
button.secondary { background: #fff; color: #0b57d0; border: 1px solid #0b57d0; }
code { overflow-wrap: anywhere; }
@media (max-width: 30rem) { main { margin: 0; border: 0; border-radius: 0; } }
`;
