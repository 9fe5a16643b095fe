import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Layering, enforced by `npm run lint` with no-restricted-imports: each folder lists what it must
 * not import, so no import runs against the layers (doc/architecture.md#layering).
 *
 * The repository: bench → tools → local → lib and lambda. The console (the page and its build)
 * and the client (the published npm package) stand apart: the console reads only lambda's
 * contract (api/ and core/), the client nothing of the repository; nothing in lambda or lib
 * reads tests, and nothing but the bench and the tests reads test/.
 */
const REPOSITORY_RULE = 'layering (bench → tools → local → lib and lambda; console and client stand apart)';
const REPOSITORY_FORBIDDEN = {
  tools: ['bench', 'test'],
  local: ['bench', 'tools', 'test'],
  lib: ['bench', 'tools', 'local', 'test'],
  lambda: ['bench', 'tools', 'local', 'lib', 'console', 'client', 'test'],
  bin: ['bench', 'tools', 'local', 'test'],
  console: ['bench', 'tools', 'local', 'lib', 'client', 'test'],
  'client/src': ['bench', 'tools', 'local', 'lib', 'lambda', 'console', 'test'],
};
// What the console may read of lambda: the contract (HTTP routes and types), never the server's code.
const CONSOLE_FORBIDDEN_IN_LAMBDA = [
  'handlers',
  'composition',
  'operations',
  'middleware',
  'store',
  'shared',
];

/**
 * Inside lambda/, imports run one way: handlers → composition → operations → middleware → api →
 * core ← store (STYLE.md, "How a request should travel here"). A handler is its function's
 * entry: it builds the AWS ports (store modules) and passes them to its composer (composition/),
 * which builds the operation from ports and never builds a store module itself. shared/ serves
 * all but the core and imports none of them.
 */
const RULE = 'import-direction (handlers → composition → operations → middleware → api → core ← store)';
const FORBIDDEN = {
  handlers: ['operations', 'middleware'],
  composition: ['handlers', 'store'],
  core: ['handlers', 'composition', 'operations', 'middleware', 'api', 'store', 'shared'],
  api: ['handlers', 'composition', 'operations', 'middleware', 'store'],
  middleware: ['handlers', 'composition', 'operations', 'store'],
  operations: ['handlers', 'composition', 'store'],
  store: ['handlers', 'composition', 'operations', 'middleware', 'api'],
  shared: ['handlers', 'composition', 'operations', 'middleware', 'api', 'core', 'store'],
};
// Only the store talks to AWS; the core knows no HTTP either; no Lambda code bundles the CDK.
const AWS_SDK = ['@aws-sdk/*'];
const CDK = ['aws-cdk-lib', 'aws-cdk-lib/*', 'constructs'];
const FORBIDDEN_PACKAGES = {
  handlers: [...AWS_SDK, ...CDK],
  composition: [...AWS_SDK, ...CDK],
  core: [...AWS_SDK, 'aws-lambda', '@middy/*', '@aws-lambda-powertools/*', '@aws/*', ...CDK],
  api: [...AWS_SDK, ...CDK],
  middleware: [...AWS_SDK, ...CDK],
  operations: [...AWS_SDK, ...CDK],
  shared: [...AWS_SDK, ...CDK],
  store: CDK,
};

/** A relative import of `folder` from anywhere under `within`, with or without a detour through `via`/. */
function folderPattern(folder, message, via = '') {
  return { regex: `^(\\.\\./)+${via ? `(${via}/)?` : ''}${folder}(/|$)`, message };
}

/** The repository's layering for one top-level folder: the folders above it. */
function repositoryPatterns(layer) {
  const patterns = REPOSITORY_FORBIDDEN[layer].map((folder) =>
    folderPattern(folder, `${REPOSITORY_RULE}: ${layer}/ must not import ${folder}/.`),
  );
  if (layer === 'console') {
    patterns.push(
      ...CONSOLE_FORBIDDEN_IN_LAMBDA.map((folder) =>
        folderPattern(
          `lambda/${folder}`,
          `${REPOSITORY_RULE}: console/ reads only lambda's contract (api/, core/), not lambda/${folder}/.`,
        ),
      ),
    );
  }
  return patterns;
}

/** Inside lambda/: the layers below `layer` and the packages it must not use, and the repository's rule. */
function lambdaLayer(layer) {
  const patterns = [
    ...FORBIDDEN[layer].map((folder) =>
      folderPattern(folder, `${RULE}: lambda/${layer}/ must not import lambda/${folder}/.`, 'lambda'),
    ),
    ...repositoryPatterns('lambda'),
  ];
  patterns.push({
    group: FORBIDDEN_PACKAGES[layer],
    message: `${RULE}: lambda/${layer}/ must not import this package.`,
  });
  return { files: [`lambda/${layer}/**/*.ts`], rules: { 'no-restricted-imports': ['error', { patterns }] } };
}

function repositoryLayer(layer) {
  return {
    files: [`${layer}/**/*.{ts,tsx,mts}`],
    rules: { 'no-restricted-imports': ['error', { patterns: repositoryPatterns(layer) }] },
  };
}

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', '.data/', 'coverage/', 'client/dist/', 'console/dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        __filename: 'readonly',
        process: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  ...Object.keys(REPOSITORY_FORBIDDEN)
    .filter((layer) => layer !== 'lambda')
    .map((layer) => repositoryLayer(layer)),
  // Every file of lambda/ is in one of its layers; each carries the repository's rule too.
  ...Object.keys(FORBIDDEN).map((layer) => lambdaLayer(layer)),
  {
    // The console page runs in the browser (its own tsconfig, console/src/tsconfig.json, has the DOM library).
    files: ['console/src/**/*.{ts,tsx}'],
    languageOptions: {
      globals: {
        window: 'readonly',
        document: 'readonly',
        location: 'readonly',
        navigator: 'readonly',
        fetch: 'readonly',
        URL: 'readonly',
        HTMLElement: 'readonly',
        Intl: 'readonly',
      },
    },
  },
  {
    // Files one head can hold (STYLE.md: split past ~400 lines along a real seam). Tests and generated
    // files are exempt; a source file kept whole says why in a disable comment naming its seam.
    files: ['**/*.{ts,tsx,js,mjs}'],
    ignores: ['test/**', 'client/test/**', 'client/src/openapi-types.ts'],
    rules: { 'max-lines': ['error', { max: 400 }] },
  },
  {
    files: ['test/**/*.ts'],
    // Tests load handler modules afresh with jest.isolateModules, which needs require().
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
