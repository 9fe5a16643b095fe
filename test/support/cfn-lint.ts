import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from './processes';

/**
 * The project's cfn-lint settings, read by the test and by .ci/run: the version expected
 * (`major.minor`; the rules change between minor versions) and every warning left, with its
 * reason. A warning not listed there fails the test, and so does an entry nothing matches.
 */
export const CFN_LINT_SETTINGS_FILE = path.join(REPO_ROOT, 'test', 'lib', 'cfn-lint.json');

/** A warning the project accepts: its rule, where, what it says, and why. */
export interface AllowedWarning {
  readonly rule: string;
  /** The resource's type: logical ids carry hashes that change with the code, types do not. */
  readonly resourceType: string;
  /** A regular expression the whole message matches, so only that cause is allowed. */
  readonly message: string;
  /** The stacks whose templates have it. */
  readonly stacks: readonly string[];
  readonly reason: string;
}

export interface CfnLintSettings {
  /** `major.minor`, e.g. `1.51`: any patch version of it. */
  readonly version: string;
  readonly allowedWarnings: readonly AllowedWarning[];
}

export const CFN_LINT_SETTINGS = JSON.parse(readFileSync(CFN_LINT_SETTINGS_FILE, 'utf8')) as CfnLintSettings;

/** One finding of cfn-lint, as its JSON output gives it. */
export interface CfnLintFinding {
  readonly level: 'Error' | 'Warning' | 'Informational';
  readonly rule: string;
  /** The template's file name without `.template.json`: the stack name. */
  readonly stack: string;
  /** Where in the template, e.g. `Resources/Api1234/Properties/Name`. */
  readonly path: string;
  readonly resourceType?: string;
  readonly message: string;
}

/** The installed cfn-lint's version (e.g. `1.51.0`), or undefined when it is not on the PATH. */
export function installedCfnLintVersion(): string | undefined {
  const result = spawnSync('cfn-lint', ['--version'], { encoding: 'utf8' });
  if (result.status !== 0) return undefined;
  return /(\d+\.\d+\.\d+)/.exec(result.stdout)?.[1];
}

/** Whether a version (e.g. `1.51.0`) is one the settings expect (`1.51`). */
export function isExpectedVersion(version: string | undefined): boolean {
  return (
    version !== undefined &&
    (version === CFN_LINT_SETTINGS.version || version.startsWith(`${CFN_LINT_SETTINGS.version}.`))
  );
}

interface RawFinding {
  Level: CfnLintFinding['level'];
  Rule: { Id: string };
  Filename: string;
  Location: { Path?: (string | number)[] };
  Message: string;
}

/**
 * Lints templates with cfn-lint, each in its region, in one cfn-lint run (its start-up, about
 * 3 s of CPU, is much of the cost): each template is linted as a copy that names its region in
 * its Metadata, which cfn-lint reads as the template's own configuration. Returns every finding,
 * its resource's type resolved.
 */
export function cfnLint(
  templates: readonly { readonly file: string; readonly region: string }[],
): CfnLintFinding[] {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'animal-store-cfn-lint-'));
  try {
    const copies = new Map<string, { readonly Resources?: Record<string, { Type: string }> }>();
    for (const { file, region } of templates) {
      const template = JSON.parse(readFileSync(file, 'utf8')) as {
        Metadata?: Record<string, unknown>;
        Resources?: Record<string, { Type: string }>;
      };
      const copy = path.join(dir, path.basename(file));
      if (copies.has(copy)) throw new Error(`two templates named ${path.basename(file)}`);
      writeFileSync(
        copy,
        JSON.stringify({
          ...template,
          Metadata: { ...template.Metadata, 'cfn-lint': { config: { regions: [region] } } },
        }),
      );
      copies.set(copy, template);
    }
    const result = spawnSync('cfn-lint', ['--format', 'json', '--', ...copies.keys()], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    // Exit codes 2 (errors), 4 (warnings), 8 (informational) add up; an odd one is cfn-lint's own failure.
    if (result.status === null || result.status % 2 === 1 || result.stdout.trim() === '') {
      throw new Error(`cfn-lint failed (status ${result.status}): ${result.stderr || result.error?.message}`);
    }
    return (JSON.parse(result.stdout) as RawFinding[]).map((raw): CfnLintFinding => {
      const location = raw.Location.Path ?? [];
      const logicalId = location[0] === 'Resources' ? String(location[1]) : undefined;
      return {
        level: raw.Level,
        rule: raw.Rule.Id,
        stack: path.basename(raw.Filename).replace(/\.template\.json$/, ''),
        path: location.join('/'),
        resourceType:
          logicalId === undefined ? undefined : copies.get(raw.Filename)?.Resources?.[logicalId]?.Type,
        message: raw.Message,
      };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Whether an allowed warning covers a finding. */
export function allows(allowed: AllowedWarning, finding: CfnLintFinding): boolean {
  return (
    finding.level !== 'Error' &&
    allowed.rule === finding.rule &&
    allowed.resourceType === finding.resourceType &&
    allowed.stacks.includes(finding.stack) &&
    new RegExp(allowed.message).test(finding.message)
  );
}
