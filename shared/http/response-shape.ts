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

const patterns = new Map<string, RegExp>();
function matchesPattern(pattern: string, value: string): boolean {
  let compiled = patterns.get(pattern);
  if (!compiled) patterns.set(pattern, (compiled = new RegExp(pattern, 'u')));
  return compiled.test(value);
}

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

function satisfiesScalarRules(shape: Shape, value: unknown): boolean {
  const { type } = shape;
  if (type !== undefined && !(typeof type === 'string' ? isOfType(type, value) : type.some((one) => isOfType(one, value)))) return false;
  if ('const' in shape && value !== shape.const) return false;
  if (shape.enum && !shape.enum.includes(value)) return false;
  if (typeof value === 'string' && shape.pattern !== undefined && !matchesPattern(shape.pattern, value)) return false;
  if (typeof value === 'number') {
    if (shape.minimum !== undefined && value < shape.minimum) return false;
    if (shape.maximum !== undefined && value > shape.maximum) return false;
    if (shape.exclusiveMinimum !== undefined && value <= shape.exclusiveMinimum) return false;
    if (shape.exclusiveMaximum !== undefined && value >= shape.exclusiveMaximum) return false;
  }
  return true;
}

/** Prefixes the paths a nested value reported (only on failure, so the happy path builds none). */
function prefix(problems: Path[], from: number, key: string | number): void {
  for (let index = from; index < problems.length; index++) problems[index]!.unshift(key);
}

function visit(shape: Shape, value: unknown, problems: Path[]): unknown {
  if (shape.anyOf) {
    for (const option of shape.anyOf) {
      const result = visit(option, value, []);
      if (result !== INVALID) return result;
    }
    problems.push([]);
    return INVALID;
  }
  if (!satisfiesScalarRules(shape, value)) {
    problems.push([]);
    return INVALID;
  }
  if (shape.items && Array.isArray(value)) {
    const output: unknown[] = new Array(value.length);
    let failed = false;
    for (let index = 0; index < value.length; index++) {
      const before = problems.length;
      const item = visit(shape.items, value[index], problems);
      if (item === INVALID) {
        prefix(problems, before, index);
        failed = true;
      } else output[index] = item;
    }
    return failed ? INVALID : output;
  }
  if (shape.properties && isRecord(value)) {
    const output: Record<string, unknown> = {};
    const required = shape.required ?? [];
    let failed = false;
    for (const key in shape.properties) {
      const field = value[key];
      if (field === undefined && !required.includes(key)) continue;
      const before = problems.length;
      const shaped = visit(shape.properties[key]!, field, problems);
      if (shaped === INVALID) {
        prefix(problems, before, key);
        failed = true;
      } else output[key] = shaped;
    }
    if (shape.additionalProperties !== false) {
      for (const key of Object.keys(value)) if (!(key in shape.properties)) output[key] = value[key];
    }
    return failed ? INVALID : output;
  }
  return value;
}

/**
 * The value as its response schema would parse it: objects keep only their listed fields (so an
 * internal field never reaches a client), in the schema's order; anything that breaks the shape is
 * reported by its path (`body.0.userId`), never by its value.
 */
export function shapeResponse(shape: Shape, value: unknown): ShapeResult {
  const problems: Path[] = [];
  const shaped = visit(shape, value, problems);
  if (shaped !== INVALID) return { ok: true, value: shaped };
  return { ok: false, paths: [...new Set(problems.map((path) => ['body', ...path].join('.')))] };
}
