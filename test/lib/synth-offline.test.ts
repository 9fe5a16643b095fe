import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ACCOUNT_STACK_NAME } from '../../lib/account-stack';
import { EDGE_STACK_NAME } from '../../lib/edge-stack';
import { REPO_ROOT } from '../support/processes';

/**
 * Loaded into the CLI and the app (NODE_OPTIONS): records every attempt to reach the network
 * (a TCP or UDP socket, a DNS lookup) in the file NETWORK_LOG names, then fails it.
 */
const NO_NETWORK = `
const fs = require('node:fs');
const record = (what) => {
  fs.appendFileSync(process.env.NETWORK_LOG, what + '\\n');
  throw new Error('network use in an offline synth: ' + what);
};
const net = require('node:net');
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  // net.connect passes its arguments normalized, as one array.
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  const options = typeof first === 'object' && first !== null ? first : { port: first, host: args[1] };
  // A Unix socket or pipe is local.
  if (options.path !== undefined || (typeof first === 'string' && Number.isNaN(Number(first)))) {
    return connect.apply(this, args);
  }
  return record('connect ' + (options.host ?? 'localhost') + ':' + options.port);
};
const dns = require('node:dns');
dns.lookup = (host) => record('dns ' + host);
dns.promises.lookup = async (host) => record('dns ' + host);
dns.resolve = (host) => record('dns ' + host);
const dgram = require('node:dgram');
dgram.Socket.prototype.send = function () { return record('udp'); };
`;

/** What a successful `cdk synth --quiet` prints. */
const PROGRESS = [
  /^Bundling asset \S+\.\.\.$/,
  /^Successfully synthesized to \S+$/,
  /^Supply a stack id \(.*\) to display its template\.$/,
];

/**
 * `cdk synth` as a platform engineer runs it, with real esbuild bundling: no AWS credentials,
 * account or region in the environment, no network (every attempt is recorded and fails), and
 * a PATH with only `node` on it, so neither Docker nor npm can be what bundles.
 */
describe('npx cdk synth', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'animal-store-cdk-out-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function synthOffline(out: string, args: string[] = [], extraEnv: NodeJS.ProcessEnv = {}) {
    const bin = path.join(dir, 'bin');
    if (!existsSync(bin)) {
      mkdirSync(bin);
      symlinkSync(process.execPath, path.join(bin, 'node'));
      writeFileSync(path.join(dir, 'no-network.cjs'), NO_NETWORK);
    }
    const networkLog = path.join(dir, `${path.basename(out)}-network.log`);
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !/^(AWS_|CDK_DEFAULT_|NODE_OPTIONS$)/.test(name)),
    );
    const result = spawnSync(
      process.execPath,
      [path.join(REPO_ROOT, 'node_modules', 'aws-cdk', 'bin', 'cdk'), 'synth', '--output', out, ...args],
      {
        cwd: REPO_ROOT,
        env: {
          ...env,
          HOME: dir,
          PATH: bin,
          NODE_OPTIONS: `--require ${path.join(dir, 'no-network.cjs')}`,
          NETWORK_LOG: networkLog,
          ...extraEnv,
        },
        encoding: 'utf8',
        timeout: 180_000,
      },
    );
    return {
      status: result.status,
      stdout: result.stdout,
      stderr: result.stderr,
      network: existsSync(networkLog) ? readFileSync(networkLog, 'utf8') : '',
    };
  }

  it('works offline, without credentials, Docker or npm, bundling every function with esbuild', () => {
    const out = path.join(dir, 'default');
    // Without CDK's CloudFormation validation (a WebAssembly engine, some 8 s of CPU here): the
    // next test's synthesis runs it over every kind of stack and shows that it prints nothing,
    // and the nag tests' synthesis runs it over these stacks as configured here.
    const result = synthOffline(out, ['--quiet', '--no-validation']);
    expect({ status: result.status, stderr: result.status === 0 ? '' : result.stderr }).toEqual({
      status: 0,
      stderr: '',
    });
    expect(result.network).toBe('');
    for (const stack of ['AnimalStore-staging', 'AnimalStore-production']) {
      expect(existsSync(path.join(out, `${stack}.template.json`))).toBe(true);
    }
    const bundles = readdirSync(out)
      .filter((entry) => entry.startsWith('asset.') && statSync(path.join(out, entry)).isDirectory())
      .map((entry) => path.join(out, entry, 'index.js'))
      .filter((file) => existsSync(file));
    // One bundle per function of a stack; both stacks share them.
    const functions = Object.values(
      (
        JSON.parse(readFileSync(path.join(out, 'AnimalStore-staging.template.json'), 'utf8')) as {
          Resources: Record<string, { Type: string }>;
        }
      ).Resources,
    ).filter((resource) => resource.Type === 'AWS::Lambda::Function');
    expect(bundles).toHaveLength(functions.length);
    // The OpenAPI document is bundled into its function, never read from disk at run time.
    const withDocument = bundles.filter((bundle) =>
      readFileSync(bundle, 'utf8').includes('jsonSchemaDialect'),
    );
    expect(withDocument).toHaveLength(1);
    expect(readFileSync(withDocument[0] ?? '', 'utf8')).not.toMatch(/readFileSync\([^)]*openapi/);
    for (const bundle of bundles) {
      const code = readFileSync(bundle, 'utf8');
      expect(code).toContain('DynamoDBClient');
      // The SDK is bundled; only its optional CRT signer stays a guarded dynamic require.
      expect(code).not.toMatch(/require\("@aws-sdk\/(client|lib)-/);
    }
  }, 180_000);

  it("prints no warning, with a platform address and production's region too (every kind of stack)", () => {
    const out = path.join(dir, 'platform');
    const result = synthOffline(
      out,
      [
        '--quiet',
        '-c',
        'platformDomain=animalstore.example',
        '-c',
        'platformHostedZoneId=Z0123456789PLATFORM',
        '-c',
        'productionRegion=eu-west-1',
      ],
      // The region a production deploy targets, matching productionRegion.
      { AWS_REGION: 'eu-west-1' },
    );
    expect({ status: result.status, network: result.network }).toEqual({ status: 0, network: '' });
    // Besides the CLI's progress and closing lines, nothing: no feature flag notice, no
    // cross-stack reference warning, no template finding.
    const lines = `${result.stdout}\n${result.stderr}`
      .split('\n')
      .filter((line) => line.trim() !== '' && !PROGRESS.some((pattern) => pattern.test(line)));
    expect(lines).toEqual([]);
    for (const stack of [
      ACCOUNT_STACK_NAME,
      'AnimalStore-staging',
      'AnimalStore-production',
      EDGE_STACK_NAME,
    ]) {
      expect(existsSync(path.join(out, `${stack}.template.json`))).toBe(true);
    }
  }, 180_000);
});
