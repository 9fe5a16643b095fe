import { InvalidResolverAddress, parseResolverAddress as parseAddress } from '../lambda/store/dns-resolver';
import { UsageError } from './failures';

/**
 * The tool's DNS: the verdicts are the domain's (lambda/core/custom-domains/dns-verdict.ts), the node:dns
 * lookup the store's (lambda/store/dns-resolver.ts), both re-exported here for the tool.
 */
export {
  AMAZON_CAA_DOMAINS,
  type CaaRecord,
  caaAllowsAmazon,
  type DnsExpectation,
  type DnsLookup,
  type DnsObservation,
  explainVerdict,
  observe,
  type Verdict,
  verdictOf,
} from '../lambda/core/custom-domains/dns-verdict';
export { resolverLookup } from '../lambda/store/dns-resolver';

/** The store's address check for `--resolver`: a bad address is a wrong invocation (exit code 2). */
export function parseResolverAddress(value: string): string {
  try {
    return parseAddress(value);
  } catch (error) {
    if (error instanceof InvalidResolverAddress) throw new UsageError(`--resolver ${error.message}`);
    throw error;
  }
}
