import type * as z from 'zod/v4/core';

/**
 * What a function needs at run time of its response schema: the JSON Schema that zod generates
 * from it (`npm run generate:openapi` writes them to response-shapes.generated.ts), read by the
 * few lines below instead of zod itself.
 *
 * Why not parse with the zod schema: building a response schema at init cost a function ~2.5 ms
 * of its cold import (every `z.*` call is an object zod constructs), and parsing each item of a
 * list was half of the wrapper's CPU per request (README "Benchmarks"). The zod schemas stay the
 * one source: the OpenAPI document and these shapes are generated from them, and
 * test/unit/response-shape.test.ts checks that both answer every sample, and every broken
 * variant of it, the same.
 *
 * Only the keywords our response schemas produce are read; the generator refuses any other, so a
 * schema that needs more cannot be shaped wrongly in silence.
 */
export type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'null' | 'object' | 'array';

export interface Shape {
  type?: JsonType | readonly JsonType[];
  const?: unknown;
  enum?: readonly unknown[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  properties?: Readonly<Record<string, Shape>>;
  required?: readonly string[];
  /** false: other fields are dropped (zod's default object); {}: kept as they are (looseObject). */
  additionalProperties?: false | Readonly<Record<string, never>>;
  items?: Shape;
  anyOf?: readonly Shape[];
}

/** A response schema as a function carries it: its name in shared/http/schemas.ts and its shape. */
export interface ResponseSpec<S extends z.$ZodType = z.$ZodType> {
  readonly schema: string;
  readonly shape: Shape;
  /** Never set: carries the zod schema's type, so `run` is checked against it. */
  readonly __schema?: S;
}

export type ShapeResult = { ok: true; value: unknown } | { ok: false; paths: string[] };

const INVALID = Symbol('invalid');
type Path = (string | number)[];

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function isOfType(type: JsonType, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'object':
      return isRecord(value);
    case 'array':
      return Array.isArray(value);
  }
}

/** Prefixes the paths a nested value reported (only on failure, so the happy path builds none). */
function prefix(problems: Path[], from: number, key: string | number): void {
  for (let index = from; index < problems.length; index++) problems[index]!.unshift(key);
}

/**
 * Shapes a value, or answers INVALID. Without `problems` it stops at the first failure (the
 * answer of every request); with it, it goes on and records the path of every failure (only
 * when an answer failed, to name what broke).
 */
type Projector = (value: unknown, problems?: Path[]) => unknown;

/** Records a failure here; the callers above prefix their key or index as it travels up. */
function fail(problems: Path[] | undefined): typeof INVALID {
  problems?.push([]);
  return INVALID;
}

/** The shape's rules for the value itself (not its fields or items), as one closure over its constants. */
function scalarRules(shape: Shape): (value: unknown) => boolean {
  const types = shape.type === undefined ? undefined : typeof shape.type === 'string' ? [shape.type] : shape.type;
  const hasConst = 'const' in shape;
  const { enum: allowed, minimum, maximum, exclusiveMinimum, exclusiveMaximum } = shape;
  const pattern = shape.pattern === undefined ? undefined : new RegExp(shape.pattern, 'u');
  return (value) => {
    if (types !== undefined) {
      let typed = false;
      for (const type of types) if (isOfType(type, value)) typed = true;
      if (!typed) return false;
    }
    if (hasConst && value !== shape.const) return false;
    if (allowed && !allowed.includes(value)) return false;
    if (pattern && typeof value === 'string' && !pattern.test(value)) return false;
    if (typeof value === 'number') {
      if (minimum !== undefined && value < minimum) return false;
      if (maximum !== undefined && value > maximum) return false;
      if (exclusiveMinimum !== undefined && value <= exclusiveMinimum) return false;
      if (exclusiveMaximum !== undefined && value >= exclusiveMaximum) return false;
    }
    return true;
  };
}

/**
 * The shape turned into nested closures once (per shape, at its first use), so that no keyword is
 * looked up per value: a list of 50 records is shaped without re-reading its shape 50 times.
 */
function compile(shape: Shape): Projector {
  if (shape.anyOf) {
    const options = shape.anyOf.map(compile);
    return (value, problems) => {
      for (const option of options) {
        const result = option(value);
        if (result !== INVALID) return result;
      }
      return fail(problems);
    };
  }
  const accepts = scalarRules(shape);
  if (shape.items) {
    const item = compile(shape.items);
    return (value, problems) => {
      if (!accepts(value)) return fail(problems);
      if (!Array.isArray(value)) return value;
      const output: unknown[] = new Array(value.length);
      let failed = false;
      for (let index = 0; index < value.length; index++) {
        const before = problems?.length ?? 0;
        const shaped = item(value[index], problems);
        if (shaped !== INVALID) output[index] = shaped;
        else if (!problems) return INVALID;
        else {
          prefix(problems, before, index);
          failed = true;
        }
      }
      return failed ? INVALID : output;
    };
  }
  if (shape.properties) {
    const required = shape.required ?? [];
    const fields = Object.entries(shape.properties).map(([key, field]) => ({ key, project: compile(field), required: required.includes(key) }));
    const known = new Set(fields.map((field) => field.key));
    const keepOthers = shape.additionalProperties !== false;
    return (value, problems) => {
      if (!accepts(value)) return fail(problems);
      if (!isRecord(value)) return value;
      const output: Record<string, unknown> = {};
      let failed = false;
      for (const { key, project, required: isRequired } of fields) {
        const field = value[key];
        if (field === undefined && !isRequired) continue;
        const before = problems?.length ?? 0;
        const shaped = project(field, problems);
        if (shaped !== INVALID) output[key] = shaped;
        else if (!problems) return INVALID;
        else {
          prefix(problems, before, key);
          failed = true;
        }
      }
      if (keepOthers) for (const key of Object.keys(value)) if (!known.has(key)) output[key] = value[key];
      return failed ? INVALID : output;
    };
  }
  return (value, problems) => (accepts(value) ? value : fail(problems));
}

const projectors = new WeakMap<Shape, Projector>();

/**
 * The value as its response schema would parse it: objects keep only their listed fields (so an
 * internal field never reaches a client), in the schema's order; anything that breaks the shape is
 * reported by its path (`body.0.userId`), never by its value.
 */
export function shapeResponse(shape: Shape, value: unknown): ShapeResult {
  let project = projectors.get(shape);
  if (!project) projectors.set(shape, (project = compile(shape)));
  const shaped = project(value);
  if (shaped !== INVALID) return { ok: true, value: shaped };
  const problems: Path[] = [];
  project(value, problems);
  return { ok: false, paths: [...new Set(problems.map((path) => ['body', ...path].join('.')))] };
}
