import { runTs } from '../support/processes';
import { DEVELOPER_NOISE } from './preflight-noise';

/**
 * `npm run preflight` as an operator runs it: streams and exit codes from a real process, and the
 * SDK of this machine with no region anywhere. Apart from preflight.test.ts (the checks in
 * process) so that `npm run test:unit`, which starts no process, leaves these out.
 */

describe('npm run preflight, as a process', () => {
  it('--help on stdout, exit 0; a wrong invocation on stderr, exit 2', async () => {
    const help = await runTs('tools/preflight.ts', ['--help'], {});
    expect(help).toEqual({
      code: 0,
      stdout: expect.stringMatching(/^Usage: npm run preflight -- \[--stage NAME\]/),
      stderr: '',
    });
    expect(help.stdout).toMatch(/^ {2}delegation +public DNS returns the zone's name servers/m);
    const wrong = await runTs('tools/preflight.ts', ['--stage', 'qa'], {});
    expect(wrong).toEqual({
      code: 2,
      stdout: '',
      stderr: 'Unknown stage "qa": use staging or production.\n',
    });
  }, 60_000);

  it('with the SDK of this machine and no region anywhere: the report on stdout, exit 1', async () => {
    const nowhere = {
      AWS_REGION: '',
      AWS_DEFAULT_REGION: '',
      AWS_PROFILE: '',
      AWS_CONFIG_FILE: '/dev/null',
      AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
      AWS_EC2_METADATA_DISABLED: 'true',
    };
    const run = await runTs('tools/preflight.ts', ['--stage', 'staging'], nowhere);
    expect(run).toEqual({ code: 1, stdout: expect.any(String), stderr: '' });
    expect(run.stdout).toMatch(
      /^FAIL {2}region +no AWS region set: the CDK CLI would deploy to us-east-1\. Fix: set AWS_REGION/m,
    );
    expect(run.stdout).toMatch(/^Preflight of staging: .* Fix what failed, then run it again\.$/m);
    expect(run.stdout).not.toMatch(DEVELOPER_NOISE);
  }, 60_000);
});
