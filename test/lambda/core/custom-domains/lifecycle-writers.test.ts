import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * Nothing but the lifecycle's decision sets a custom domain's state.
 *
 * The method: the TypeScript checker, over every source of lambda/, tools/ and local/. A
 * record's state can only be given where an object literal (or an assignment) puts a value in a
 * property `state` whose type is the domain's states (the checker's contextual type, so a literal
 * passed to `save`, stored through the port, cast with `as CustomDomain` or spread into a record
 * is found alike, whatever its variable is called). Only lambda/core/custom-domains/lifecycle.ts
 * may do that: the rest writes what {@link decide} returned (`saveDecision`, `recordAfter`,
 * `newRecord`), and the record's fields are readonly, so no code mutates a read one. A grep for
 * `state:` could not tell a domain's state from a certificate's or a view's; the checker can. A
 * report that copies a view's state into an object typed by itself is no write. The last test
 * proves the check finds a write where one is.
 */

const ROOT = path.join(__dirname, '..', '..', '..', '..');
const ALLOWED = new Set(['lambda/core/custom-domains/lifecycle.ts']);
/** A state only a custom domain has: a union holding it is the domain's states. */
const DOMAIN_STATE_MARK = 'certificate-pending';
/**
 * Libraries that never type a domain record, read as empty modules (their values then have no
 * type to give a literal): the CDK (the tools' stacks) and the AWS SDK (the store's commands) are
 * most of what the checker would otherwise parse (50 of 56 MB).
 */
const UNTYPED_LIBRARIES = /[/\\]node_modules[/\\](aws-cdk-lib|constructs|@aws-sdk|@smithy)[/\\]/;

function sources(folder: string): string[] {
  return readdirSync(path.join(ROOT, folder)).flatMap((name) => {
    const relative = path.join(folder, name);
    if (statSync(path.join(ROOT, relative)).isDirectory()) return sources(relative);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [relative] : [];
  });
}

function isDomainState(checker: ts.TypeChecker, type: ts.Type | undefined): boolean {
  if (!type) return false;
  const members = type.isUnion() ? type.types : [type];
  return members.some((member) => member.isStringLiteral() && member.value === DOMAIN_STATE_MARK);
}

/** Every place of the program's files (outside `ALLOWED`) that gives a domain's `state` a value. */
function stateWriters(files: readonly string[], extra?: { file: string; text: string }): string[] {
  const host = ts.createCompilerHost({});
  const { getSourceFile, fileExists } = host;
  const target = extra ? path.join(ROOT, extra.file) : undefined;
  host.fileExists = (name) => name === target || fileExists(name);
  host.getSourceFile = (name, language, ...rest) => {
    if (extra && name === target) return ts.createSourceFile(name, extra.text, language);
    if (UNTYPED_LIBRARIES.test(name)) return ts.createSourceFile(name, 'export {};', language);
    return getSourceFile(name, language, ...rest);
  };
  const roots = [...files, ...(extra ? [extra.file] : [])].map((file) => path.join(ROOT, file));
  const program = ts.createProgram(
    roots,
    {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      allowImportingTsExtensions: true,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      module: ts.ModuleKind.Preserve,
      target: ts.ScriptTarget.ES2022,
      jsx: ts.JsxEmit.Preserve,
      esModuleInterop: true,
      resolveJsonModule: true,
      types: ['node'],
    },
    host,
  );
  const checker = program.getTypeChecker();
  const found: string[] = [];
  for (const source of program.getSourceFiles()) {
    const file = path.relative(ROOT, source.fileName);
    if (file.startsWith('..') || file.includes('node_modules') || ALLOWED.has(file)) continue;
    const report = (node: ts.Node) => {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      found.push(`${file}:${line + 1}`);
    };
    const visit = (node: ts.Node): void => {
      if (
        (ts.isPropertyAssignment(node) || ts.isShorthandPropertyAssignment(node)) &&
        node.name.getText(source) === 'state' &&
        ts.isObjectLiteralExpression(node.parent)
      ) {
        const contextual = checker.getContextualType(node.parent);
        const property = contextual?.getProperty('state');
        const type = property ? checker.getTypeOfSymbolAtLocation(property, node) : undefined;
        // A view (the dashboard's DomainView) shows the state; a report that copies a view's state
        // (`state: view.state`) into an object typed by itself writes no record either.
        const declaredInView = property?.declarations?.some((declaration) =>
          /View$/.test((declaration.parent as ts.InterfaceDeclaration).name?.getText() ?? ''),
        );
        const declaredHere = property?.declarations?.every((declaration) => declaration === node) ?? true;
        const copied =
          ts.isPropertyAssignment(node) &&
          ts.isPropertyAccessExpression(node.initializer) &&
          node.initializer.name.text === 'state';
        const isView = declaredInView === true || (declaredHere && copied);
        if (isDomainState(checker, type) && !isView) report(node);
      }
      if (
        ts.isBinaryExpression(node) &&
        node.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
        (ts.isPropertyAccessExpression(node.left) || ts.isElementAccessExpression(node.left)) &&
        /\bstate\b/.test(
          ts.isPropertyAccessExpression(node.left)
            ? node.left.name.text
            : node.left.argumentExpression.getText(source),
        ) &&
        isDomainState(checker, checker.getTypeAtLocation(node.left))
      ) {
        report(node);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

const FILES = [...sources('lambda'), ...sources('tools'), ...sources('local')];

/** A module that sets the state three ways, checked in the same program: the check must find each. */
const ROGUE = {
  file: 'lambda/core/custom-domains/rogue.ts',
  text: [
    "import type { CustomDomain } from './custom-domain';",
    "import type { RecordChanges } from './lifecycle';",
    'export function rogue(domain: CustomDomain): CustomDomain {',
    "  const changes: RecordChanges = { state: 'active' };",
    "  (domain as { state: CustomDomain['state'] }).state = 'failed';",
    "  return { ...domain, ...changes, state: 'redirect' } as CustomDomain;",
    '}',
  ].join('\n'),
};

describe("who writes a custom domain's state", () => {
  let found: string[] = [];
  beforeAll(() => {
    found = stateWriters(FILES, ROGUE);
  });

  it('is the lifecycle alone, in lambda/, tools/ and local/', () => {
    expect(found.filter((place) => !place.startsWith(ROGUE.file))).toEqual([]);
  });

  it('finds a write outside it (a record built by hand, a save of a state, an assignment)', () => {
    expect(found.filter((place) => place.startsWith(ROGUE.file))).toEqual([
      `${ROGUE.file}:4`,
      `${ROGUE.file}:5`,
      `${ROGUE.file}:6`,
    ]);
  });
});
