/**
 * One error model for the whole service (decisions §4): every failure the kernel or a plugin
 * raises is an HttpError, and the server alone turns it into an RFC 9457 problem+json body.
 * Plugins declare their own problem types with `defineProblem` in their errors.ts, so an error is
 * found by grepping its code. Handlers never build error bodies by hand and never echo exceptions.
 */
export interface FieldError {
  /** JSON pointer into the request part, e.g. `/body/expression` */
  field: string;
  message: string;
}

/**
 * The field errors of a refused value as one clause for a verdict's message (a composite route's
 * item is refused with a BLOCKED verdict, not a 400, so its errors travel in words): pointers lose
 * their part prefix, `expression must NOT have more than 5000 characters; tolerance …`.
 */
export function describeFieldErrors(errors: readonly FieldError[]): string {
  return errors
    .map((e) => {
      const field = e.field.replace(/^\/[a-z]+\/?/, '');
      return field ? `${field} ${e.message}` : e.message;
    })
    .join('; ');
}

export interface ProblemDef {
  code: string;
  status: number;
  title: string;
}

export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly detail: string;
  readonly constraintId?: string;
  readonly errors?: FieldError[];
  readonly headers?: Record<string, string>;
  /** extra members of the problem body (RFC 9457 extension members) */
  readonly extensions?: Record<string, unknown>;
  /**
   * the refusal is a policy block of the request's content (an exfiltration attempt, a forbidden
   * engine), a verdict rather than a failure: observers such as the audit record it as `blocked`
   */
  readonly policyBlock?: boolean;

  constructor(
    def: ProblemDef,
    detail?: string,
    opts: { constraintId?: string; errors?: FieldError[]; headers?: Record<string, string>; extensions?: Record<string, unknown>; policyBlock?: boolean } = {},
  ) {
    super(detail ?? def.title);
    this.status = def.status;
    this.code = def.code;
    this.title = def.title;
    this.detail = detail ?? def.title;
    this.constraintId = opts.constraintId;
    this.errors = opts.errors;
    this.headers = opts.headers;
    this.extensions = opts.extensions;
    if (opts.policyBlock) this.policyBlock = true;
  }

  toProblem(instance?: string): Record<string, unknown> {
    const body: Record<string, unknown> = {
      ...(this.extensions ?? {}),
      type: `urn:proofgate:problem:${this.code}`,
      title: this.title,
      status: this.status,
      detail: this.detail,
      code: this.code,
    };
    if (instance) body.instance = instance;
    if (this.constraintId) body.constraint_id = this.constraintId;
    if (this.errors) body.errors = this.errors;
    return body;
  }
}

export function defineProblem(code: string, status: number, title: string): ProblemDef {
  return Object.freeze({ code, status, title });
}

/** The kernel's own catalog. */
export const Problems = {
  notFound: defineProblem('not_found', 404, 'Not Found'),
  methodNotAllowed: defineProblem('method_not_allowed', 405, 'Method Not Allowed'),
  badJson: defineProblem('invalid_json', 400, 'Malformed JSON body'),
  validation: defineProblem('validation_failed', 400, 'Request validation failed'),
  tooDeep: defineProblem('too_deep', 400, 'Request nested too deeply'),
  numberOutOfRange: defineProblem('number_out_of_range', 400, 'Number outside the double range'),
  unsupportedMediaType: defineProblem('unsupported_media_type', 415, 'Unsupported Media Type'),
  payloadTooLarge: defineProblem('payload_too_large', 413, 'Payload Too Large'),
  unauthorized: defineProblem('unauthorized', 401, 'Unauthorized'),
  forbidden: defineProblem('forbidden', 403, 'Forbidden'),
  rateLimited: defineProblem('rate_limited', 429, 'Too Many Requests'),
  engineTimeout: defineProblem('engine_timeout', 503, 'Engine deadline exceeded'),
  engineUnavailable: defineProblem('engine_unavailable', 503, 'Engine unavailable'),
  unavailable: defineProblem('service_unavailable', 503, 'Service Unavailable'),
  shuttingDown: defineProblem('shutting_down', 503, 'Server is shutting down'),
  storeUnavailable: defineProblem('store_unavailable', 503, 'Store unavailable'),
  storeFull: defineProblem('store_full', 507, 'Insufficient Storage'),
  internal: defineProblem('internal_error', 500, 'Internal Server Error'),
} as const;
