import type { ConsoleClient } from '../../lambda/api/console-client';
import type { DomainsCommandIo } from './io';
import type { DomainsCommandSpec, DomainsValues } from './options';
import { serviceOf } from './service';

/** A command line, parsed and checked against its command's declaration. */
export interface TenantInput {
  readonly command: string;
  readonly operands: readonly string[];
  readonly values: DomainsValues;
}

/** What a command found out, in words for text and in the shape its --json prints. */
export interface Diagnosis<Report> {
  readonly report: Report;
  /** 0 done; 1 not (verify: not verified). */
  readonly exitCode: number;
}

/**
 * A tenant's command, in the Vercel CLI's shape: its declaration, then it gathers the facts
 * (the typed client's calls, DNS), diagnoses them purely, and renders the report as text (with
 * --json the report itself is printed).
 */
export interface TenantCommand<Facts, Report> {
  readonly declaration: DomainsCommandSpec;
  gather(service: ConsoleClient, input: TenantInput): Promise<Facts>;
  diagnose(facts: Facts, input: TenantInput): Diagnosis<Report>;
  /** The report in words; the facts are there for what the report does not print (a view's notices). */
  render(report: Report, facts: Facts, input: TenantInput): string[];
}

/** A command as the dispatcher sees it: its declaration, and how it runs to an exit code. */
export interface RunnableCommand {
  readonly declaration: DomainsCommandSpec;
  run(io: DomainsCommandIo, input: TenantInput): Promise<number>;
}

/** Declares a tenant command: the dispatcher runs it by its name. */
export function tenantCommand<Facts, Report>(command: TenantCommand<Facts, Report>): RunnableCommand {
  return {
    declaration: command.declaration,
    async run(io: DomainsCommandIo, input: TenantInput): Promise<number> {
      const facts = await command.gather(serviceOf(io, input.values.url), input);
      const { report, exitCode } = command.diagnose(facts, input);
      if (input.values.json) io.out(JSON.stringify(report));
      else for (const line of command.render(report, facts, input)) io.out(line);
      return exitCode;
    },
  };
}
