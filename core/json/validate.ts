import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import type { _ as CodeTag } from 'ajv';
import { HttpError, Problems, type FieldError } from '../errors.js';
import { aloneValidator, contentKey, loadGenerated, type GeneratedValidators } from './generated.js';

type StandaloneCode = (ajv: Ajv, validate: ValidateFunction) => string;
interface AjvModules {
  Ajv: new (opts: object) => Ajv;
  Ajv2020: new (opts: object) => Ajv;
  addFormats: (ajv: Ajv) => Ajv;
  standaloneCode: StandaloneCode;
  _: typeof CodeTag;
}
let modules: AjvModules | undefined;
/**
 * ajv itself, loaded at the first compile: with the build's generated validators (generated.ts) a
 * process that compiles nothing never loads it (~65 ms of CPU at every start). All four are CommonJS.
 */
function ajv(): AjvModules {
  if (!modules) {
    const load = createRequire(import.meta.url);
    const core = load('ajv') as { Ajv: AjvModules['Ajv']; _: typeof CodeTag };
    const formats = load('ajv-formats') as { default?: AjvModules['addFormats'] } & AjvModules['addFormats'];
    const standalone = load('ajv/dist/standalone') as { default: StandaloneCode };
    modules = {
      Ajv: core.Ajv,
      Ajv2020: (load('ajv/dist/2020') as { Ajv2020: AjvModules['Ajv2020'] }).Ajv2020,
      addFormats: formats.default ?? formats,
      standaloneCode: standalone.default,
      _: core._,
    };
  }
  return modules;
}

export type Part = 'body' | 'query' | 'params' | 'response' | 'config';
const DRAFT_2020 = 'https://json-schema.org/draft/2020-12/schema';

/**
 * The kernel's Ajv, in one place: every validator in this code base is built here, so a schema
 * means the same thing to a route, a plugin, a worker thread and the CLI (all errors reported,
 * unknown keywords tolerated, defaults filled in, ajv-formats' formats checked; draft 2020-12
 * when the schema declares it). Only query strings and path params coerce types: they arrive as text.
 */
function newAjv(v2020: boolean, coerce: boolean, source = false): Ajv {
  const opts = {
    allErrors: true,
    strict: false,
    useDefaults: true,
    ...(coerce ? { coerceTypes: 'array' as const } : {}),
    // generated code names ajv-formats' formats by the module that holds them (CommonJS, like the code)
    ...(source ? { code: { source: true, formats: ajv()._`require("ajv-formats/dist/formats").fullFormats` } } : {}),
  };
  const { Ajv: Draft07, Ajv2020, addFormats } = ajv();
  const a = v2020 ? new Ajv2020(opts) : new Draft07(opts);
  addFormats(a);
  return a;
}

const is2020 = (schema: object) => (schema as { $schema?: string }).$schema === DRAFT_2020;
const standalone = new Map<boolean, Ajv>();
const standaloneById = new Map<string, ValidateFunction>();
/** the same for a schema without `$id` (the assembled configuration schema, one object per plugin set), by the object */
const standaloneByObject = new WeakMap<object, ValidateFunction>();

/**
 * A validator for code that runs where no app exists: a worker thread, the offline CLI, the
 * configuration loader before the kernel starts. A main-thread plugin with the app at hand
 * registers its schema (`app.schema`) and calls `app.validate` instead. A schema with an `$id` is
 * compiled once per process (the same file read twice is the same schema).
 */
export function compileSchema(schema: object): ValidateFunction {
  const id = (schema as { $id?: unknown }).$id;
  const known = typeof id === 'string' ? standaloneById.get(id) : standaloneByObject.get(schema);
  if (known) return known;
  // the build's validator of exactly this text, when it generated one (core/json/generated.ts)
  let v = aloneValidator(schema);
  if (!v) {
    const v2020 = is2020(schema);
    let a = standalone.get(v2020);
    if (!a) standalone.set(v2020, (a = newAjv(v2020, false)));
    v = a.compile(schema);
  }
  if (typeof id === 'string') standaloneById.set(id, v);
  else standaloneByObject.set(schema, v);
  return v;
}

/** `schema` compiled alone with the kernel's options, bypassing every cache and generated file (tests compare the two) */
export function compileAlone(schema: object): ValidateFunction {
  return newAjv(is2020(schema), false).compile(schema);
}

/** compileSchema's validator of `schema` (compiled alone) as CommonJS source */
export function aloneSource(schema: object): string {
  const a = newAjv(is2020(schema), false, true);
  return ajv().standaloneCode(a, a.compile(schema));
}

/**
 * Settings fragments compiled once per process, by the fragment object (a plugin's constant): every
 * kernel of the process (tests start hundreds) compiled each plugin's fragment again, meta-schema check
 * included. Only fragments without `$ref`, which mean the same on every instance; the options of the
 * instances that compile them are the same (newAjv without coercion).
 */
const settingsValidators = new WeakMap<object, ValidateFunction>();

/**
 * One place that knows JSON Schema. Bodies are validated without type coercion (a JSON client
 * sends types); query strings and path params arrive as text, so their validator coerces.
 * Schemas declaring draft 2020-12 get a 2020 instance. Instances are built and validators compiled
 * on first use, so start-up pays only for reading the files.
 */
export class Validator {
  /** ajv instances by key (draft × coercion), built on first use: /healthz must not wait for them */
  private readonly instances = new Map<string, Ajv>();
  /** the same with code generation on, for the build's generator (standalone) */
  private readonly sourceInstances = new Map<string, Ajv>();
  /** the build's validators of the repository's schemas (generated.ts), looked up at the first check */
  private generatedSet: GeneratedValidators | null | undefined;
  private readonly fromGenerated = new Set<string>();

  /** `checked`: the repository's own files, whose meta-schema check is a test (schemas.test) rather than every start-up's */
  private readonly schemas: Array<{ schema: object; v2020: boolean; checked: boolean }> = [];
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly ids = new Set<string>();
  private readonly is2020 = new Set<string>();

  /** `generated`: the directory the build wrote the repository schemas' validators to (core/json/generated.ts) */
  constructor(private readonly generated?: URL) {}

  private instance(v2020: boolean, coerce: boolean, source = false): Ajv {
    const key = `${v2020 ? '2020' : '07'}:${coerce ? 'c' : 's'}`;
    const instances = source ? this.sourceInstances : this.instances;
    let a = instances.get(key);
    if (!a) {
      a = newAjv(v2020, coerce, source);
      // checking ~100 schemas against the meta-schema was most of an instance's ~40 ms build (per
      // kernel, CLI command and sidecar start); a plugin's schema is still checked here
      for (const s of this.schemas) if (s.v2020 === v2020) a.addSchema(s.schema, undefined, undefined, !s.checked);
      instances.set(key, a);
    }
    return a;
  }

  /**
   * SHA-256 of the repository's schemas as loaded (loadDir), in $id order: the build's validators are
   * used only while it is the one they were generated from, so an edited schema never meets an older
   * validator (every check then compiles, as without them).
   */
  checkedFingerprint(): string {
    const checked = this.schemas.filter((s) => s.checked).map((s) => s.schema as { $id: string });
    checked.sort((a, b) => (a.$id < b.$id ? -1 : a.$id > b.$id ? 1 : 0));
    return contentKey(checked);
  }

  /** the repository schemas' ids (loadDir), which the build generates validators for */
  checkedIds(): string[] {
    return this.schemas.filter((s) => s.checked).map((s) => (s.schema as { $id: string }).$id);
  }

  /** schema `id`'s validator as CommonJS source (the build's generator; `coerce`: the query/params form) */
  standalone(id: string, coerce: boolean): string {
    const a = this.instance(this.is2020.has(id), coerce, true);
    const v = a.getSchema(id);
    if (!v) throw new Error(`unknown schema ${id}`);
    return ajv().standaloneCode(a, v);
  }

  /** where the validator `check` uses for `id` came from (tests; undefined before its first use) */
  origin(id: string, part: Part): 'generated' | 'compiled' | undefined {
    const key = `${part === 'query' || part === 'params' ? 'c' : 's'}:${id}`;
    if (!this.compiled.has(key)) return undefined;
    return this.fromGenerated.has(key) ? 'generated' : 'compiled';
  }

  private generatedFor(id: string, coerce: boolean): ValidateFunction | undefined {
    if (this.generatedSet === undefined) this.generatedSet = this.generated ? loadGenerated(this.generated, () => this.checkedFingerprint()) : null;
    return this.generatedSet?.fn(id, coerce);
  }

  /**
   * Loads every *.json schema under a directory tree: the repository's schemas/, whose files
   * test/core/schemas.test.ts checks against their meta-schema, so start-up does not again.
   */
  loadDir(dir: URL | string): void {
    const root = typeof dir === 'string' ? dir : fileURLToPath(dir);
    const walk = (d: string) => {
      for (const name of readdirSync(d).sort()) {
        const p = join(d, name);
        if (statSync(p).isDirectory()) walk(p);
        else if (name.endsWith('.json')) this.register(JSON.parse(readFileSync(p, 'utf8')) as object, p, true);
      }
    };
    walk(root);
  }

  add(schema: object, origin = 'inline'): void {
    this.register(schema, origin, false);
  }

  private register(schema: object, origin: string, checked: boolean): void {
    const id = (schema as { $id?: unknown }).$id;
    if (typeof id !== 'string' || !id) throw new Error(`schema from ${origin} has no $id`);
    if (this.ids.has(id)) throw new Error(`schema ${id} registered twice (${origin})`);
    this.ids.add(id);
    const v2020 = is2020(schema);
    if (v2020) this.is2020.add(id);
    this.schemas.push({ schema, v2020, checked });
    // an instance that already exists gets the schema now; the others get it when they are built
    for (const [key, a] of this.instances) if (key.startsWith(v2020 ? '2020' : '07')) a.addSchema(schema, undefined, undefined, !checked);
  }

  /** every registered schema id (tests compile them all) */
  schemaIds(): string[] {
    return [...this.ids];
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  /** the schema as registered (the OpenAPI document is built from these) */
  get(id: string): object | undefined {
    return this.schemas.find((s) => (s.schema as { $id?: string }).$id === id)?.schema;
  }

  private fn(id: string, part: Part): ValidateFunction {
    const key = `${part === 'query' || part === 'params' ? 'c' : 's'}:${id}`;
    let v = this.compiled.get(key);
    if (!v) {
      const coerce = part === 'query' || part === 'params';
      v = this.ids.has(id) ? this.generatedFor(id, coerce) : undefined;
      if (v) this.fromGenerated.add(key);
      else v = this.instance(this.is2020.has(id), coerce).getSchema(id);
      if (!v) throw new Error(`unknown schema ${id}`);
      this.compiled.set(key, v);
    }
    return v;
  }

  /** Returns the field errors of `data` against schema `id` (empty when valid). Applies defaults in place. */
  check(id: string, data: unknown, part: Part): FieldError[] {
    const v = this.fn(id, part);
    if (v(data)) return [];
    return (v.errors ?? []).map((e) => toFieldError(e, part));
  }

  /**
   * Start-up check of a plugin's settings at `at` against the fragment it declared (Plugin.settings):
   * throws an Error naming the first invalid setting, e.g. `plugin_config.stats.max_columns must be >= 1`.
   */
  assertSettings(at: string, schema: object, value: unknown): void {
    // compiled on the shared instance but not registered: a setting is not part of the API (OpenAPI, client)
    let v = settingsValidators.get(schema);
    if (!v) {
      // the build generated the built-in plugins' fragments (those that name no other schema)
      const generated = this.generated ? aloneValidator(schema, this.generated) : undefined;
      v = generated ?? this.instance(is2020(schema), false).compile(schema);
      if (generated || !JSON.stringify(schema).includes('"$ref"')) settingsValidators.set(schema, v);
    }
    if (!v(value)) {
      const first = toFieldError((v.errors ?? [])[0], 'config');
      throw new Error(`${at}${first.field.slice('/config'.length).replaceAll('/', '.')} ${first.message}`);
    }
  }

  /** Throws a 400 problem naming every invalid field. */
  assert(id: string, data: unknown, part: Exclude<Part, 'response'>): void {
    const errors = this.check(id, data, part);
    if (errors.length) {
      const first = errors[0];
      throw new HttpError(Problems.validation, `${first.field}: ${first.message}`, { errors });
    }
  }
}

function toFieldError(e: ErrorObject, part: Part): FieldError {
  let field = `/${part}${e.instancePath}`;
  const p = e.params as Record<string, unknown>;
  if (e.keyword === 'required' && typeof p.missingProperty === 'string') field += `/${p.missingProperty}`;
  if (e.keyword === 'additionalProperties' && typeof p.additionalProperty === 'string') field += `/${p.additionalProperty}`;
  let message = e.message ?? 'is invalid';
  if (e.keyword === 'additionalProperties') message = 'is not an allowed property';
  if (e.keyword === 'required') message = 'is required';
  if (e.keyword === 'enum' && Array.isArray(p.allowedValues)) message = `must be one of ${p.allowedValues.map((x) => JSON.stringify(x)).join(', ')}`;
  return { field, message };
}
