/**
 * Email of the console's sign-in through Amazon SES (doc/identity.md, "Email one-time codes"):
 * given as `-c signInEmailFrom=no-reply@animalstore.example`, and `-c signInEmailDomain=…` where
 * the verified SES identity is the address's domain. Read by the configuration and the user pool.
 */

/**
 * Email through Amazon SES, which Cognito needs to send one-time sign-in codes, and to send
 * more than its own 50 messages a day.
 */
export interface SignInEmailConfig {
  /** The sender, e.g. `no-reply@animalstore.example`: a verified SES identity, or an address of one. */
  readonly fromEmail: string;
  /**
   * The sender's name.
   * @default 'Animal Store'
   */
  readonly fromName?: string;
  /**
   * The verified SES domain, where the identity is the domain rather than the address.
   * @default the address is the identity
   */
  readonly sesVerifiedDomain?: string;
  /**
   * The SES region, one Cognito supports for the pool's region.
   * @default the stack's region
   */
  readonly sesRegion?: string;
}

const EMAIL_ADDRESS = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Every problem of a sign-in email configuration, each with its fix; empty when valid. */
export function signInEmailProblems(email: SignInEmailConfig): string[] {
  const problems: string[] = [];
  if (!EMAIL_ADDRESS.test(email.fromEmail)) {
    problems.push(
      `sign-in email sender ${JSON.stringify(email.fromEmail)}: use one address of a verified SES identity, e.g. no-reply@animalstore.example.`,
    );
  }
  const domain = email.sesVerifiedDomain;
  if (domain !== undefined && !email.fromEmail.toLowerCase().endsWith(`@${domain.toLowerCase()}`)) {
    problems.push(
      `sign-in email domain ${JSON.stringify(domain)}: the sender ${JSON.stringify(email.fromEmail)} must be an address of it.`,
    );
  }
  return problems;
}

/**
 * The sign-in email given as `-c signInEmailFrom=<address>` and, optionally,
 * `-c signInEmailDomain=<verified SES domain>`; undefined when neither is set.
 */
export function signInEmailFromContext(from: unknown, domain: unknown): SignInEmailConfig | undefined {
  const unset = (value: unknown) => value === undefined || value === '';
  if (unset(from) && unset(domain)) return undefined;
  if (typeof from !== 'string' || unset(from)) {
    throw new Error(
      `Context value "signInEmailFrom" is ${JSON.stringify(from)}: give the sender's address, e.g. -c signInEmailFrom=no-reply@animalstore.example (doc/identity.md).`,
    );
  }
  if (!unset(domain) && typeof domain !== 'string') {
    throw new Error(`Context value "signInEmailDomain" is ${JSON.stringify(domain)}: give a domain name.`);
  }
  const email: SignInEmailConfig = {
    fromEmail: from,
    ...(unset(domain) ? {} : { sesVerifiedDomain: domain as string }),
  };
  const problems = signInEmailProblems(email);
  if (problems.length > 0) throw new Error(`Context value "signInEmailFrom": ${problems.join(' ')}`);
  return email;
}
