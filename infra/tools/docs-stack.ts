import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROD_CONTEXT } from '../../test/bench/cost-deployment';
import { synthesize } from '../../test/infra/synth';
import type { StackCount } from './docs-figures';

type Template = { Resources?: Record<string, { Type: string }> };

export interface SynthesizedTemplates {
  /** The stack first, then each nested stack (by the file CDK writes for it). */
  templates: { name: string; template: Template }[];
}

/**
 * The production stack as the documents quote it (the deployment `npm run cost` prices), synthesized
 * without bundling: every template of the cloud assembly, nested stacks included.
 */
export function synthesizeProdTemplates(): SynthesizedTemplates {
  const { stack, assembly } = synthesize(PROD_CONTEXT, { bundle: false });
  const read = (file: string) => JSON.parse(readFileSync(join(assembly.directory, file), 'utf8')) as Template;
  const templates = [{ name: stack.stackName, template: read(assembly.getStackByName(stack.stackName).templateFile) }];
  for (const file of readdirSync(assembly.directory).filter((name) => name.endsWith('.nested.template.json')).sort()) {
    // `CaptioningServiceprodBehaviorAreaAA8DF418.nested.template.json`: the parent's name, the construct id, a hash.
    const logicalId = file.replace(/\.nested\.template\.json$/, '');
    templates.push({ name: logicalId.replace(stack.stackName.replace(/-/g, ''), '').replace(/[0-9A-F]{8}$/, ''), template: read(file) });
  }
  return { templates };
}

export const stackCounts = ({ templates }: SynthesizedTemplates): StackCount[] =>
  templates.map(({ name, template }) => ({ name, resources: Object.keys(template.Resources ?? {}).length }));

/** The logical ids of every CloudWatch alarm, in every template. */
export const alarmIds = ({ templates }: SynthesizedTemplates): string[] =>
  templates.flatMap(({ template }) => Object.entries(template.Resources ?? {}).filter(([, resource]) => resource.Type === 'AWS::CloudWatch::Alarm').map(([id]) => id));
