import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AnimalStoreStack } from '../../lib/animal-store-stack';
import { type EnvironmentName, environmentConfigs } from '../../lib/config/environments';

const templates = new Map<EnvironmentName, Template>();

/**
 * Synthesizes one environment's stack, environment-agnostic whatever the shell sets,
 * without running esbuild (`aws:cdk:bundling-stacks` empty) so template tests stay fast.
 * Templates are immutable, so each environment is synthesized once per test file.
 */
export function synthEnvironment(name: EnvironmentName): Template {
  const cached = templates.get(name);
  if (cached) return cached;
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const config = environmentConfigs({})[name];
  const template = Template.fromStack(new AnimalStoreStack(app, config.stackName, { config }));
  templates.set(name, template);
  return template;
}
