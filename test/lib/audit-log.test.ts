import { RUNTIME_ENV } from '../../lambda/shared/runtime-env';
import { AUDIT_LOG_TABLE } from '../../lambda/store/table-schema';
import { ENVIRONMENT_NAMES } from '../../lib/config/environments';
import { productionWithEdge, synthEnvironment } from '../support/synth';
import {
  actionsOf,
  environmentOf,
  resource,
  resourcesOfType,
  type Statement,
  tableIdFromOutput,
} from './template-queries';

/**
 * The audit log's table (issue 28): a project's partition sorted by time, kept a year by TTL,
 * and append-only: no policy of the stack lets anything update, delete or batch-write an entry.
 */

/** Actions that would change or remove an entry: any of them, or a wildcard that covers them. */
const CHANGES = [
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:PartiQLUpdate',
  'dynamodb:PartiQLDelete',
];

function covers(action: string, change: string): boolean {
  const pattern = new RegExp(`^${action.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`, 'i');
  return pattern.test(change);
}

/** Every statement of every policy of the template: policies, roles' inline and managed policies. */
function everyStatement(template: ReturnType<typeof synthEnvironment>): Statement[] {
  const documents = [
    ...Object.values(resourcesOfType(template, 'AWS::IAM::Policy')).map(
      (policy) => policy.Properties.PolicyDocument,
    ),
    ...Object.values(resourcesOfType(template, 'AWS::IAM::ManagedPolicy')).map(
      (policy) => policy.Properties.PolicyDocument,
    ),
    ...Object.values(resourcesOfType(template, 'AWS::IAM::Role')).flatMap((role) =>
      ((role.Properties.Policies ?? []) as { PolicyDocument: unknown }[]).map(
        (policy) => policy.PolicyDocument,
      ),
    ),
  ] as { Statement: Statement[] }[];
  return documents.flatMap((document) => document.Statement);
}

/** Whether a statement's resources reach the table: its ARN (or an index of it), or a wildcard. */
function reaches(statement: Statement, tableId: string): boolean {
  const resources = JSON.stringify(statement.Resource ?? '*');
  return resources.includes(`"${tableId}"`) || /"\*"|"arn:[^"]*:\*"/.test(resources) || resources === '"*"';
}

describe.each(ENVIRONMENT_NAMES)('the %s stack', (name) => {
  const template = synthEnvironment(name);
  const tableId = tableIdFromOutput(template, 'AuditLogTableName');

  test('partitions by project, sorts by time and a suffix, and keeps an entry a year by TTL on expiresAt', () => {
    expect(resource(template, tableId).Properties).toMatchObject({
      KeySchema: [
        { AttributeName: AUDIT_LOG_TABLE.partitionKey.name, KeyType: 'HASH' },
        { AttributeName: AUDIT_LOG_TABLE.sortKey.name, KeyType: 'RANGE' },
      ],
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
  });

  test('is append-only: no policy allows UpdateItem, DeleteItem or BatchWriteItem on it', () => {
    const statements = everyStatement(template);
    expect(statements.length).toBeGreaterThan(10);
    const offending = statements.filter(
      (statement) =>
        statement.Effect === 'Allow' &&
        reaches(statement, tableId) &&
        actionsOf(statement).some((action) => CHANGES.some((change) => covers(action, change))),
    );
    expect(offending).toEqual([]);
  });
});

describe('the console function', () => {
  const template = productionWithEdge();
  const tableId = tableIdFromOutput(template, 'AuditLogTableName');
  const functions = Object.entries(resourcesOfType(template, 'AWS::Lambda::Function'));

  test('alone reads and appends to it: PutItem and Query, with the table in its environment', () => {
    const holders = functions.filter(
      ([id]) => environmentOf(template, id)[RUNTIME_ENV.auditLogTable] !== undefined,
    );
    expect(holders).toHaveLength(1);
    const onTable = everyStatement(template).filter((statement) =>
      JSON.stringify(statement.Resource).includes(`"${tableId}"`),
    );
    expect(onTable.map((statement) => actionsOf(statement).sort())).toEqual([
      ['dynamodb:PutItem', 'dynamodb:Query'],
    ]);
  });
});
