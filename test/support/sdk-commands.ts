import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildSync, type Metafile } from 'esbuild';
import ts from 'typescript';
import { BUNDLE_OPTIONS } from '../../lib/constructs/api-function';
import { REPO_ROOT } from './processes';

/**
 * The AWS SDK commands each Lambda function can send, derived from its bundle and its code.
 *
 * The method, in two sound steps:
 *
 * 1. **The bundle.** esbuild bundles every handler as the CDK bundling does (lib/constructs/api-function.ts's
 *    options), in one in-memory pass with a metafile, except that it resolves packages to their ES
 *    modules (`mainFields: module first`). The deployed bundle takes the SDK's CommonJS build, one file
 *    per client holding every command, which says nothing; the ES build has one module per command
 *    (`dist-es/commands/GetItemCommand.js`), and tree shaking keeps only those the function's code
 *    references. The metafile's inputs of each output are then exactly the command modules the
 *    function ships: a command it can send is among them, since sending one needs its class.
 * 2. **The code.** A class is kept whole, so a repository used for one read ships its writes too.
 *    A call graph over the TypeScript sources (the modules the metafile lists) narrows the commands to
 *    those constructed in code reachable from the handler module: module initialization, then every
 *    function, method and class referenced from reachable code; a method called through an interface
 *    (or on a value of unknown type) reaches the method of that name of each class that reachable
 *    code instantiates and whose instances have that type. Every function value referenced is taken
 *    as called, and every branch as taken, so it over-approximates, never under. Packages'
 *    declarations are not parsed (but Node's): an SDK command is known by the module it is imported from.
 *
 * Each command found is tied to the class whose method constructs it (a repository), and that class
 * to the environment variables each of its constructions requires (`requireEnv(RUNTIME_ENV.petsTable)`),
 * which name the table it uses.
 */

/** One SDK command a function can send. */
export interface SentCommand {
  /** The SDK package, e.g. `@aws-sdk/client-dynamodb`. */
  readonly sdkPackage: string;
  /** The command class as the code names it, e.g. `GetCommand` (lib-dynamodb) or `GetItemCommand`. */
  readonly command: string;
  /** The service API operation it sends, e.g. `GetItem` (a lib-dynamodb command: its client command's). */
  readonly operation: string;
  /** The class whose code constructs it (e.g. `PetRepository`), if any. */
  readonly owner?: string;
  /**
   * The runtime environment variables each construction of `owner` requires (`requireEnv`), one list
   * per construction site: where a function lacks one, that construction throws before any command.
   */
  readonly ownerConstructions: readonly (readonly string[])[];
  /** Where it is constructed, `file:line`. */
  readonly site: string;
  /** How the handler reaches it: the references from module load to `site`, `file:line` each. */
  readonly path: readonly string[];
}

/** What the analysis found for one handler module. */
export interface FunctionCommands {
  /** Path of the handler module, relative to the repository. */
  readonly entry: string;
  /** Operations whose command modules the bundle ships (`@aws-sdk/client-x:Operation`), step 1. */
  readonly bundled: ReadonlySet<string>;
  /** The commands reachable code constructs, step 2. */
  readonly sent: readonly SentCommand[];
}

const AWS_SDK = /node_modules\/(@aws-sdk\/[^/]+)\/dist-es\/(?:.*\/)?commands\/(\w+)Command\.js$/;

/** The client command a lib-dynamodb command wraps, read from its module (`GetCommand` → `GetItem`). */
export function libDynamodbOperation(command: string): string {
  const file = path.join(REPO_ROOT, 'node_modules/@aws-sdk/lib-dynamodb/dist-es/commands', `${command}.js`);
  const wrapped = /import \{\s*(\w+)Command as __\1Command\s*\}/.exec(readFileSync(file, 'utf8'));
  if (!wrapped?.[1]) throw new Error(`lib-dynamodb's ${command} wraps no client-dynamodb command`);
  return wrapped[1];
}

/** The API operation of a command class of an SDK package. */
function operationOf(sdkPackage: string, command: string): string {
  return sdkPackage === '@aws-sdk/lib-dynamodb'
    ? libDynamodbOperation(command)
    : command.replace(/Command$/, '');
}

/** Step 1: one esbuild pass over every entry; the command modules each output ships. */
function bundledCommands(
  entries: readonly string[],
): Map<string, { commands: Set<string>; sources: Set<string> }> {
  const outdir = path.join(REPO_ROOT, 'cdk.out', 'iam-analysis');
  const { metafile } = buildSync({
    ...BUNDLE_OPTIONS,
    external: [...BUNDLE_OPTIONS.external],
    minify: false,
    format: 'esm',
    mainFields: ['module', 'main'],
    entryPoints: entries.map((entry) => ({ in: entry, out: path.basename(entry, '.ts') })),
    outdir,
    write: false,
    metafile: true,
    absWorkingDir: REPO_ROOT,
    logLevel: 'error',
  });
  const byEntry = new Map<string, { commands: Set<string>; sources: Set<string> }>();
  for (const output of Object.values((metafile as Metafile).outputs)) {
    if (!output.entryPoint) continue;
    const commands = new Set<string>();
    const sources = new Set<string>();
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      if (bytesInOutput === 0) continue;
      const command = AWS_SDK.exec(input);
      if (command?.[1] && command[2]) commands.add(`${command[1]}:${command[2]}`);
      else if (!input.includes('node_modules') && input.endsWith('.ts'))
        sources.add(path.join(REPO_ROOT, input));
    }
    byEntry.set(path.join(REPO_ROOT, output.entryPoint), { commands, sources });
  }
  return byEntry;
}

type Body = ts.Node;
type ClassLike = ts.ClassDeclaration | ts.ClassExpression;

/** Where a node is, `file:line`. */
function siteOf(node: ts.Node): string {
  const source = node.getSourceFile();
  const { line } = source.getLineAndCharacterOfPosition(node.getStart());
  return `${path.relative(REPO_ROOT, source.fileName)}:${line + 1}`;
}

const isFunctionValue = (node: ts.Node | undefined): node is ts.ArrowFunction | ts.FunctionExpression =>
  node !== undefined && (ts.isArrowFunction(node) || ts.isFunctionExpression(node));

/**
 * A file of this repository's own code. Not only the bundle's modules: a module of types alone
 * (an interface a store implements) is erased from the bundle but says which methods a call reaches.
 */
const isProjectFile = (file: string) => file.startsWith(REPO_ROOT) && !file.includes('/node_modules/');

/** The `@aws-sdk/…` package an import specifier imports from, if it does. */
function sdkImport(specifier: ts.ImportSpecifier): string | undefined {
  const from = specifier.parent.parent.parent.moduleSpecifier;
  return ts.isStringLiteral(from) && from.text.startsWith('@aws-sdk/') ? from.text : undefined;
}

/** Step 2: the commands constructed in code reachable from a handler, whose bundle's modules load first. */
class Reachability {
  private readonly visited = new Set<string>();
  private readonly queue: { body: Body; owner?: ClassLike; path: readonly string[] }[] = [];
  /** The path to the body being walked, and the reference being resolved in it. */
  private path: readonly string[] = [];
  private site = '';
  private readonly instantiated = new Set<ClassLike>();
  /** Members called through a type rather than a class's own declaration: by name, and the type (none: any). */
  private readonly calledMembers = new Map<string, Set<ts.Type | undefined>>();
  private readonly constructionsOf = new Map<ClassLike, Map<string, readonly string[]>>();
  private readonly constructed = new Map<
    string,
    Omit<SentCommand, 'ownerConstructions'> & { ownerNode?: ClassLike }
  >();

  constructor(private readonly checker: ts.TypeChecker) {}

  /** The commands constructed in reachable code, each with what its owner's instantiations read. */
  run(files: readonly ts.SourceFile[]): SentCommand[] {
    for (const file of files) for (const statement of file.statements) this.topLevel(statement);
    for (let next = this.queue.shift(); next; next = this.queue.shift()) {
      this.path = next.path;
      this.walk(next.body, next.owner);
    }
    return [...this.constructed.values()].map(({ ownerNode, ...command }) => ({
      ...command,
      ownerConstructions: [...(ownerNode ? (this.constructionsOf.get(ownerNode)?.values() ?? []) : [])],
    }));
  }

  private inProject(node: ts.Node): boolean {
    return isProjectFile(node.getSourceFile().fileName);
  }

  private enqueue(body: Body | undefined, owner: ClassLike | undefined): void {
    if (!body || !this.inProject(body)) return;
    const key = `${body.getSourceFile().fileName}:${body.pos}:${body.end}:${owner ? `${owner.pos}` : ''}`;
    if (this.visited.has(key)) return;
    this.visited.add(key);
    this.queue.push({ body, owner, path: this.site ? [...this.path, this.site] : [siteOf(body)] });
  }

  /** A module's top level runs at load; its functions and classes only when referenced. */
  private topLevel(statement: ts.Statement): void {
    if (ts.isFunctionDeclaration(statement) || ts.isInterfaceDeclaration(statement)) return;
    if (ts.isTypeAliasDeclaration(statement) || ts.isImportDeclaration(statement)) return;
    if (ts.isClassDeclaration(statement)) return this.classLoad(statement);
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (!isFunctionValue(declaration.initializer)) this.enqueue(declaration.initializer, undefined);
      }
      return;
    }
    this.enqueue(statement, undefined);
  }

  /** What a class runs when its module loads: its heritage and static members. */
  private classLoad(node: ClassLike): void {
    for (const clause of node.heritageClauses ?? []) this.enqueue(clause, undefined);
    for (const member of node.members) {
      const isStatic =
        ts.canHaveModifiers(member) &&
        ts.getModifiers(member)?.some((m) => m.kind === ts.SyntaxKind.StaticKeyword);
      if (ts.isClassStaticBlockDeclaration(member)) this.enqueue(member.body, node);
      else if (isStatic && ts.isPropertyDeclaration(member)) this.enqueue(member.initializer, node);
    }
  }

  /** A class constructed (`required`: the variables that construction requires) or used as a value (none). */
  private instantiate(node: ClassLike, required: readonly string[]): void {
    const constructions = this.constructionsOf.get(node) ?? new Map<string, readonly string[]>();
    constructions.set(required.join(','), required);
    this.constructionsOf.set(node, constructions);
    if (this.instantiated.has(node)) return;
    this.instantiated.add(node);
    for (const member of node.members) {
      if (ts.isConstructorDeclaration(member)) this.enqueue(member.body, node);
      else if (ts.isPropertyDeclaration(member) && member.initializer) this.enqueue(member.initializer, node);
      else if (member.name && ts.isIdentifier(member.name) && this.isCalled(member.name.text, node)) {
        this.enqueueMember(member, node);
      }
    }
    for (const clause of node.heritageClauses ?? []) {
      if (clause.token !== ts.SyntaxKind.ExtendsKeyword) continue;
      for (const type of clause.types) {
        for (const declaration of this.declarationsOf(type.expression)) {
          if (ts.isClassDeclaration(declaration) || ts.isClassExpression(declaration)) {
            this.instantiate(declaration, required);
          }
        }
      }
    }
  }

  private enqueueMember(member: ts.ClassElement, owner: ClassLike): void {
    if (ts.isMethodDeclaration(member) || ts.isGetAccessor(member) || ts.isSetAccessor(member)) {
      this.enqueue(member.body, owner);
    } else if (ts.isPropertyDeclaration(member) && isFunctionValue(member.initializer)) {
      this.enqueue(member.initializer, owner);
    }
  }

  private instanceType(node: ClassLike): ts.Type | undefined {
    const symbol = node.name ? this.checker.getSymbolAtLocation(node.name) : undefined;
    return symbol ? this.checker.getDeclaredTypeOfSymbol(symbol) : undefined;
  }

  /** Whether a member of this name is called on a type the class's instances are assignable to (or on any). */
  private isCalled(name: string, node: ClassLike): boolean {
    const through = this.calledMembers.get(name);
    if (!through) return false;
    const instance = this.instanceType(node);
    return [...through].some(
      (type) =>
        type === undefined || instance === undefined || this.checker.isTypeAssignableTo(instance, type),
    );
  }

  /**
   * A member called through a type (an interface, a type literal, a base class) or on a value of
   * unknown type: each instantiated class's member of that name whose instances are of that type.
   */
  private callMember(name: string, through: ts.Type | undefined): void {
    const known = this.calledMembers.get(name) ?? new Set();
    if (known.has(through)) return;
    known.add(through);
    this.calledMembers.set(name, known);
    for (const node of this.instantiated) {
      if (!this.isCalled(name, node)) continue;
      for (const member of node.members) {
        if (member.name && ts.isIdentifier(member.name) && member.name.text === name)
          this.enqueueMember(member, node);
      }
    }
  }

  /** The type that declares a member: its interface, type literal or class. */
  private containerType(declaration: ts.Declaration): ts.Type | undefined {
    const container = declaration.parent;
    if (ts.isInterfaceDeclaration(container) || ts.isClassDeclaration(container)) {
      const symbol = container.name ? this.checker.getSymbolAtLocation(container.name) : undefined;
      return symbol ? this.checker.getDeclaredTypeOfSymbol(symbol) : undefined;
    }
    return ts.isTypeLiteralNode(container) ? this.checker.getTypeAtLocation(container) : undefined;
  }

  private declarationsOf(node: ts.Node): ts.Declaration[] {
    let symbol =
      ts.isShorthandPropertyAssignment(node.parent) && node.parent.name === node
        ? this.checker.getShorthandAssignmentValueSymbol(node.parent)
        : this.checker.getSymbolAtLocation(node);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) {
      const imported = symbol.declarations?.find(ts.isImportSpecifier);
      if (imported && sdkImport(imported)) return [imported];
      symbol = this.checker.getAliasedSymbol(symbol);
    }
    return symbol?.declarations ?? [];
  }

  /** The runtime environment variables a construction's arguments require (`requireEnv(RUNTIME_ENV.x)`). */
  private requiredBy(expression: ts.NewExpression): string[] {
    const names = new Set<string>();
    const visit = (node: ts.Node): void => {
      if (
        ts.isCallExpression(node) &&
        ts.isIdentifier(node.expression) &&
        node.expression.text === 'requireEnv'
      ) {
        const type = node.arguments[0] && this.checker.getTypeAtLocation(node.arguments[0]);
        if (type?.isStringLiteral()) names.add(type.value);
      }
      ts.forEachChild(node, visit);
    };
    for (const argument of expression.arguments ?? []) visit(argument);
    return [...names].sort();
  }

  private reference(node: ts.Identifier, owner: ClassLike | undefined): void {
    this.site = siteOf(node);
    const declarations = this.declarationsOf(node);
    const parent = node.parent;
    const isMemberName = ts.isPropertyAccessExpression(parent) && parent.name === node;
    if (declarations.length === 0 && isMemberName) this.callMember(node.text, undefined);
    for (const declaration of declarations) {
      const file = declaration.getSourceFile().fileName;
      if (ts.isImportSpecifier(declaration) || !isProjectFile(file)) {
        this.sdkCommand(node, declaration, owner);
        continue;
      }
      if (ts.isClassDeclaration(declaration) || ts.isClassExpression(declaration)) {
        const construction = ts.isNewExpression(parent) && parent.expression === node ? parent : undefined;
        this.instantiate(declaration, construction ? this.requiredBy(construction) : []);
      } else if (ts.isFunctionDeclaration(declaration)) {
        this.enqueue(declaration.body, owner);
      } else if (ts.isVariableDeclaration(declaration) && isFunctionValue(declaration.initializer)) {
        this.enqueue(declaration.initializer, owner);
      } else if (
        ts.isMethodDeclaration(declaration) ||
        ts.isGetAccessor(declaration) ||
        ts.isSetAccessor(declaration)
      ) {
        const container = declaration.parent;
        if (ts.isClassDeclaration(container) || ts.isClassExpression(container)) {
          this.enqueue(declaration.body, container);
          this.callMember(node.text, this.containerType(declaration));
        } else {
          this.enqueue(declaration.body, owner);
        }
      } else if (
        ts.isMethodSignature(declaration) ||
        ts.isPropertySignature(declaration) ||
        ts.isPropertyDeclaration(declaration)
      ) {
        if (isMemberName) this.callMember(node.text, this.containerType(declaration));
      }
    }
  }

  /** A reference to an SDK command class (`new GetCommand(...)`, or passed as a value). */
  private sdkCommand(node: ts.Identifier, declaration: ts.Declaration, owner: ClassLike | undefined): void {
    if (!ts.isImportSpecifier(declaration)) return;
    const sdkPackage = sdkImport(declaration);
    const command = (declaration.propertyName ?? declaration.name).text;
    if (!sdkPackage || !/Command$/.test(command)) return;
    const site = siteOf(node);
    this.constructed.set(`${site}:${owner?.name?.text ?? ''}`, {
      sdkPackage,
      command,
      operation: operationOf(sdkPackage, command),
      owner: owner?.name?.text,
      ownerNode: owner,
      site,
      path: this.path,
    });
  }

  private walk(node: ts.Node, owner: ClassLike | undefined): void {
    if (ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node) || ts.isTypeNode(node)) return;
    if (ts.isImportDeclaration(node)) return;
    if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) {
      this.classLoad(node);
      return;
    }
    if (ts.isIdentifier(node)) {
      this.reference(node, owner);
      return;
    }
    ts.forEachChild(node, (child) => this.walk(child, owner));
  }
}

/**
 * The commands each handler module can send: step 1 and step 2 of the method above, for every
 * entry at once (one esbuild pass, one TypeScript program).
 */
export function sdkCommandsOf(entries: readonly string[]): Map<string, FunctionCommands> {
  const bundles = bundledCommands(entries);
  const sources = new Set([...bundles.values()].flatMap(({ sources: files }) => [...files]));
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.Preserve,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    resolveJsonModule: true,
    types: ['node'],
  };
  // Packages' declarations are left empty: parsing the SDK's would take most of a minute, and an
  // SDK command is recognized by its import's module instead (see sdkImport).
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, ...rest) =>
    fileName.includes('/node_modules/') && !/\/node_modules\/(typescript\/lib|@types\/node)\//.test(fileName)
      ? ts.createSourceFile(fileName, '', languageVersion)
      : getSourceFile(fileName, languageVersion, ...rest);
  const program = ts.createProgram([...sources], options, host);
  const checker = program.getTypeChecker();
  const result = new Map<string, FunctionCommands>();
  for (const entry of entries) {
    const bundle = bundles.get(entry);
    if (!bundle) throw new Error(`esbuild made no bundle of ${path.relative(REPO_ROOT, entry)}`);
    const files = [...bundle.sources]
      .map((file) => program.getSourceFile(file))
      .filter((file) => file !== undefined);
    const sent = new Reachability(checker).run(files);
    result.set(entry, {
      entry: path.relative(REPO_ROOT, entry),
      bundled: new Set(
        [...bundle.commands].map((key) => {
          const [sdkPackage = '', command = ''] = key.split(':');
          return `${sdkPackage}:${operationOf(sdkPackage, `${command}Command`)}`;
        }),
      ),
      sent,
    });
  }
  return result;
}
