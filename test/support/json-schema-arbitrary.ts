import * as fc from 'fast-check';
import { atPointer } from './openapi-ajv';

/**
 * Values a JSON Schema of the OpenAPI document allows, as fast-check arbitraries: the sampler of
 * the property test that a generated client's requests are ones the server takes. It covers the
 * keywords the document's request schemas use (`$ref`, `type`, `const`, `enum`, `oneOf`/`anyOf`/
 * `allOf`, `properties`/`required`, `minProperties`, string lengths and patterns, number bounds,
 * array sizes) and throws on any other, so a schema it does not understand fails loudly instead of
 * being sampled wrongly. What it draws is a candidate: the caller keeps the values the document's
 * own validator (ajv) accepts, so the sampler can be generous and the document stays the judge.
 */
export type JsonSchema = Record<string, any>;

/** A value for a schema that carries a rule JSON Schema cannot state, or undefined to sample it. */
export type Override = (schema: JsonSchema, name: string | undefined) => fc.Arbitrary<unknown> | undefined;

const KNOWN = new Set([
  '$ref', 'type', 'const', 'enum', 'oneOf', 'anyOf', 'allOf', 'properties', 'required', 'minProperties', 'items', 'minItems', 'maxItems',
  'minLength', 'maxLength', 'pattern', 'format', 'minimum', 'maximum', 'default', 'description', 'examples', 'discriminator',
]);

/** The longest string drawn at random; longer `maxLength`s are reached by one repeated character. */
const RANDOM_LENGTH = 40;

export class SchemaSampler {
  constructor(
    private readonly document: object,
    private readonly override: Override = () => undefined,
  ) {}

  arbitrary(schema: JsonSchema, name?: string): fc.Arbitrary<unknown> {
    if (schema.$ref) return this.arbitrary(atPointer(this.document, schema.$ref), name);
    const unknown = Object.keys(schema).filter((key) => !KNOWN.has(key));
    if (unknown.length > 0) throw new Error(`the sampler does not know ${unknown.join(', ')} (in ${JSON.stringify(schema).slice(0, 200)})`);
    const overridden = this.override(schema, name);
    if (overridden) return overridden;
    if ('const' in schema) return fc.constant(schema.const);
    if (schema.enum) return fc.constantFrom(...(schema.enum as unknown[]));

    const { oneOf, anyOf, allOf, ...rest } = schema;
    // `oneOf`/`anyOf` of whole schemas (event types, string-or-null, e-mail-or-phone): one branch,
    // with what the parent says besides.
    const branches = (oneOf ?? anyOf) as JsonSchema[] | undefined;
    if (branches && !branches.every(isRequiredOnly)) {
      return fc.oneof(...branches.map((branch) => this.arbitrary({ ...rest, ...this.resolve(branch) }, name)));
    }
    if (Array.isArray(schema.type)) return fc.oneof(...schema.type.map((type: string) => this.arbitrary({ ...rest, type }, name)));
    switch (schema.type) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer':
        return fc.bigInt({ min: BigInt(schema.minimum ?? -(2 ** 31)), max: BigInt(schema.maximum ?? 2 ** 31) }).map(Number);
      case 'number':
        return fc.double({ min: schema.minimum ?? -1e9, max: schema.maximum ?? 1e9, noNaN: true, noDefaultInfinity: true });
      case 'string':
        return this.string(schema);
      case 'array':
        return this.array(schema, name);
      case 'object':
        return this.object(schema, branches ?? [], oneOf !== undefined, allOf ?? []);
      default:
        throw new Error(`the sampler does not know type ${JSON.stringify(schema.type)}`);
    }
  }

  private resolve(schema: JsonSchema): JsonSchema {
    return schema.$ref ? this.resolve(atPointer(this.document, schema.$ref)) : schema;
  }

  private string(schema: JsonSchema): fc.Arbitrary<string> {
    const min: number = schema.minLength ?? 0;
    const max: number = schema.maxLength ?? Math.max(min, RANDOM_LENGTH);
    const fits = (value: string) => {
      const length = [...value].length;
      return length >= min && length <= max;
    };
    if (typeof schema.pattern === 'string') {
      const pattern = new RegExp(schema.pattern, 'u');
      // An anchored pattern describes the whole string: fast-check draws from the regex itself.
      if (schema.pattern.startsWith('^') && schema.pattern.endsWith('$')) return fc.stringMatching(new RegExp(schema.pattern)).filter(fits);
      // An unanchored one (`\S`) is a condition on text of the allowed length.
      return this.text(min, max).filter((value) => pattern.test(value));
    }
    return this.text(min, max);
  }

  /** Any Unicode text (no lone surrogates: the server refuses them, and says so) of min..max code points, boundaries included. */
  private text(min: number, max: number): fc.Arbitrary<string> {
    const short = fc.string({ unit: 'binary', minLength: min, maxLength: Math.min(max, min + RANDOM_LENGTH) });
    const longest =
      max - min <= RANDOM_LENGTH ? fc.string({ unit: 'binary', minLength: max, maxLength: max }) : fc.constantFrom('a', '字', '😀', '\u0000').map((unit) => unit.repeat(max));
    return fc.oneof({ arbitrary: short, weight: 6 }, { arbitrary: longest, weight: 1 });
  }

  private array(schema: JsonSchema, name: string | undefined): fc.Arbitrary<unknown[]> {
    const items = this.arbitrary(schema.items ?? {}, name);
    const min: number = schema.minItems ?? 0;
    const max: number = schema.maxItems ?? min + 5;
    return fc.oneof(
      { arbitrary: fc.array(items, { minLength: min, maxLength: Math.min(max, min + 5) }), weight: 6 },
      { arbitrary: fc.array(items, { minLength: max, maxLength: max }), weight: 1 },
    );
  }

  /**
   * An object: its required properties, any of the others. Branches that only require properties
   * (`oneOf: [{required: [email]}, {required: [phone]}]`, a PATCH body's `allOf: [{anyOf: ...}]`)
   * choose which further ones are present; under `oneOf`, the other branches' are left out.
   */
  private object(schema: JsonSchema, requiredBranches: JsonSchema[], exclusive: boolean, allOf: JsonSchema[]): fc.Arbitrary<Record<string, unknown>> {
    const properties: Record<string, JsonSchema> = schema.properties ?? {};
    // Built once: building an arbitrary (a regex's) per drawn value would make drawing the slow part.
    const model = Object.fromEntries(Object.entries(properties).map(([property, propertySchema]) => [property, this.arbitrary(propertySchema, property)]));
    const choices = [...(requiredBranches.length > 0 ? [{ branches: requiredBranches, exclusive }] : []), ...allOf.map((part) => requiredChoice(part))];
    const pick = fc.tuple(...choices.map((choice) => fc.constantFrom(...choice.branches)));
    return pick.chain((chosen) => {
      const required = new Set<string>(schema.required ?? []);
      const excluded = new Set<string>();
      chosen.forEach((branch, index) => {
        for (const property of branch.required ?? []) required.add(property);
        if (!choices[index]!.exclusive) return;
        for (const other of requiredBranches) if (other !== branch) for (const property of other.required ?? []) excluded.add(property);
      });
      const present = Object.fromEntries(Object.entries(model).filter(([property]) => !excluded.has(property)));
      return fc.record(present, { requiredKeys: [...required].filter((property) => property in present) }) as fc.Arbitrary<Record<string, unknown>>;
    });
  }
}

const isRequiredOnly = (schema: JsonSchema) => Object.keys(schema).every((key) => key === 'required');

/** An `allOf` part the sampler can choose from: `{anyOf: [{required: [...]}, ...]}`. */
function requiredChoice(part: JsonSchema): { branches: JsonSchema[]; exclusive: boolean } {
  const branches = (part.anyOf ?? part.oneOf) as JsonSchema[] | undefined;
  if (!branches || Object.keys(part).length !== 1 || !branches.every(isRequiredOnly)) {
    throw new Error(`the sampler knows allOf only of required-only branches, not ${JSON.stringify(part)}`);
  }
  return { branches, exclusive: part.oneOf !== undefined };
}
