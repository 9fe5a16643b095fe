// Jest transform: TypeScript and ES modules (middy ships ESM only) to CommonJS with
// esbuild, which the project already uses to bundle the Lambda functions.
const { createHash } = require('node:crypto');
const { readFileSync } = require('node:fs');
const { transformSync, version } = require('esbuild');

const self = readFileSync(__filename);

module.exports = {
  process(source, filename) {
    const { code, map } = transformSync(source, {
      loader: filename.endsWith('.ts') ? 'ts' : 'js',
      format: 'cjs',
      target: 'node20',
      sourcemap: 'external',
      sourcefile: filename,
      // Jest's module registry serves require(), not import(): lower import() to it.
      supported: { 'dynamic-import': false },
    });
    return { code, map };
  },
  // Jest caches transformed files; a change to this transform or to esbuild must reach them.
  getCacheKey(source, filename) {
    return createHash('sha256').update(self).update(version).update(filename).update(source).digest('hex');
  },
};
