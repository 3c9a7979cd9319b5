import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { defineCommand, didYouMean, fsProblem, type Command } from '../../core/cli.js';
import { sha256Ref } from '../../core/json/canonical.js';
import { HttpError, Problems } from '../../core/errors.js';
import type { Plugin, Principal } from '../../core/types.js';
import { insecureHttpOptIn } from '../../core/http/loopback.js';
import { InsecureTransportError, ProofgateClient, ProofgateError, ResponseTooLargeError, toVerificationContext } from '../../packages/client/src/index.js';
import { insideRoot, outsideRootOutcome, realRoot } from '../verify/files.js';
import { itemsOf, judge, UsageError, type Item, type Kind, type Outcome } from '../verify/items.js';
import { toSarif } from '../verify/sarif.js';
import { toJunit } from '../verify/junit.js';
import { rule } from '../verify/glob.js';
import { expandTargets } from '../verify/walk.js';

const KINDS = ['code', 'sql', 'math'];
const FORMATS = ['text', 'json', 'sarif', 'junit', 'vc'];
const DEFAULT_MAX_FILES = 5000;

const USAGE = `proofgate verify code|sql|math FILE|DIR… [options]

Verifies files against a running proofgate (--url, key from $PROOFGATE_API_KEY) or in this process
with the same engines and no server or key (--local).
  code   one request per file; language from the extension (.py .js .mjs .cjs .jsx .ts .tsx …) or --language
  sql    one request per file (the whole file is the query); --schema FILE gives the CREATE statements
  math   one request per non-blank line (# starts a comment line)
A DIR is walked (name order; .git and node_modules skipped; .gitignore files respected; symlinked
directories not entered, a symlinked file read only when it resolves inside --root) for the kind's
files: code the extensions above (those of --language when given), sql *.sql, math *.math.
Options:
  --include GLOB     in directories, verify only files matching GLOB (repeatable; replaces the
                     kind's extensions): '*.py', 'src/**/*.ts'
  --exclude GLOB     in directories, skip files and directories matching GLOB (repeatable)
  --max-files N      refuse a run of more than N files (default 5000)
  --progress         a line per file on stderr even when stderr is not a terminal (CI logs)
  --url URL          service address (default $PROOFGATE_URL, else http://127.0.0.1:8080)
  --allow-insecure-http  send the key over plain http:// to a host that is not loopback
                     (or $PROOFGATE_ALLOW_INSECURE_HTTP=1); refused otherwise
  --root DIR         read only files whose real path (symlinks resolved) is inside DIR (default: the
                     current directory); any other FILE is not read and is denied
  --local            run the engines in-process instead of calling a service
  --format F         text (default) | json | sarif | junit | vc
  --output FILE      write the formatted result there instead of stdout
  --sarif FILE       also write SARIF 2.1.0 to FILE (whatever --format is)
  --language L       code language for every file
  --schema FILE      sql: schema DDL file (required for sql)
  --dialect D        sql dialect (default sqlite)
  --allow-writes     sql: admit bounded writes
When $GITHUB_OUTPUT is set, appends verified, verdict, admission, findings_count, sarif_file and (only when
every result is VERIFIED) proof_ref.
Exit: 0 every file admitted, 1 something denied, 2 usage or service error. With more than one file, a
progress line per file goes to stderr when stderr is a terminal (or with --progress).`;

const ROUTES: Record<Kind, (c: ProofgateClient, body: Record<string, unknown>) => Promise<unknown>> = {
  code: (c, b) => c.postVerifyCode(b as never),
  sql: (c, b) => c.postVerifySql(b as never),
  math: (c, b) => c.postVerifyMath(b as never),
};

/**
 * In-process mode: the one engine this run needs (start-up loads and warms nothing else), the VC
 * converter when documents are asked for, and an authenticator for one random key that never leaves memory.
 */
const ENGINE_PLUGINS: Record<Kind, () => Promise<{ default: Plugin }>> = {
  code: () => import('../../plugins/engines/code/index.js'),
  sql: () => import('../../plugins/engines/sql/index.js'),
  math: () => import('../../plugins/engines/math/index.js'),
};

async function localClient(kind: Kind, documents: boolean): Promise<{ client: ProofgateClient; close(): Promise<void> }> {
  const key = `svc_local_${randomBytes(24).toString('base64url')}`;
  const localAuth: Plugin = {
    name: 'local-cli-auth',
    register(app) {
      app.authenticator('apiKey', async (ctx) => {
        if (ctx.headers['x-api-key'] !== key) throw new HttpError(Problems.unauthorized, 'invalid API key');
        const p: Principal = { kind: 'apiKey', orgId: 'local', keyId: 'local', scopes: ['verify:read'], tier: 'enterprise' };
        return p;
      });
    },
  };
  const [{ localKernel }, engine, vc] = await Promise.all([
    import('../local.js'),
    ENGINE_PLUGINS[kind](),
    documents ? import('../../plugins/verification-context/index.js') : null,
  ]);
  const local = await localKernel([localAuth, engine.default, ...(vc ? [vc.default] : [])]);
  let url: string;
  try {
    ({ url } = await local.kernel.listen());
    await local.ready();
  } catch (err) {
    await local.close(); // its temporary data directory goes too
    throw err;
  }
  return { client: new ProofgateClient({ baseUrl: url, apiKey: key, retries: 0 }), close: () => local.close() };
}

/** The input an attestation binds (see docs/attestation.md): the expression, the SQL text, nothing for code. */
function attestedQuery(item: Item): unknown {
  if (item.kind === 'math') return String(item.body.expression).normalize('NFKC').trim();
  if (item.kind === 'sql') return item.body.query;
  return undefined;
}

function summary(outcomes: Outcome[]) {
  const all = outcomes.length > 0;
  const verified = all && outcomes.every((o) => o.answer.status === 'VERIFIED');
  const admitted = all && outcomes.every((o) => o.admitted);
  const statuses = outcomes.map((o) => String(o.answer.status));
  const verdict = verified ? 'VERIFIED' : statuses.includes('BLOCKED') ? 'BLOCKED' : 'UNVERIFIABLE';
  const refs = outcomes.map((o) => ({ file: o.item.file, line: o.item.line, proof_ref: o.answer.proof_ref }));
  // one file: its own proof_ref; several: a hash binding each file's proof_ref (only when all are VERIFIED)
  // proof_ref, as the API and $GITHUB_OUTPUT spell it (one spelling in every output, issue 43)
  const proof_ref = !verified ? null : refs.length === 1 ? String(refs[0].proof_ref) : sha256Ref(refs);
  return { verified, admitted, verdict, findings: outcomes.reduce((n, o) => n + o.findings.length, 0), proof_ref };
}

function text(outcomes: Outcome[]): string {
  const out: string[] = [];
  for (const o of outcomes) {
    out.push(`${o.item.file}:${o.item.line}: ${String(o.answer.status)} ${o.admitted ? 'ADMIT' : 'DENY'} — ${String(o.answer.agent_message ?? '')}`);
    for (const f of o.findings) out.push(`  ${o.item.file}:${f.line}:${f.column} ${f.severity} ${f.ruleId} ${f.message}`);
  }
  const s = summary(outcomes);
  out.push(`${outcomes.length} checked, ${s.findings} finding(s): ${s.admitted ? 'ADMIT' : 'DENY'}`);
  return out.join('\n') + '\n';
}

export const verifyCommand: Command = defineCommand({
  name: 'verify',
  summary: 'verify code, SQL or math files (CI): text, JSON, SARIF 2.1.0 or Verification Context output',
  usage: USAGE,
  options: {
      url: { type: 'string' },
      local: { type: 'boolean' },
      format: { type: 'string', default: 'text' },
      output: { type: 'string' },
      sarif: { type: 'string' },
      language: { type: 'string' },
      schema: { type: 'string' },
      dialect: { type: 'string' },
      'allow-writes': { type: 'boolean' },
      'allow-insecure-http': { type: 'boolean' },
      root: { type: 'string' },
      include: { type: 'string', multiple: true },
      exclude: { type: 'string', multiple: true },
      'max-files': { type: 'string' },
      progress: { type: 'boolean' },
    },
  // the kind and its paths are checked below, with a did-you-mean for the kind
  positionals: { min: 0, max: Infinity },
  async run({ values, positionals }) {
    const [kind, ...paths] = positionals;
    const format = String(values.format);
    const problem = !['code', 'sql', 'math'].includes(kind)
      ? `${kind === undefined ? 'no kind given' : `unknown kind ${JSON.stringify(kind)}${didYouMean(kind, KINDS) ? ` (did you mean ${didYouMean(kind, KINDS)}?)` : ''}`}: give code, sql or math first`
      : !paths.length
        ? 'give at least one FILE or DIR after the kind'
        : !FORMATS.includes(format)
          ? `unknown --format ${JSON.stringify(format)}${didYouMean(format, FORMATS) ? ` (did you mean ${didYouMean(format, FORMATS)}?)` : ''}: give --format text|json|sarif|junit|vc`
          : values['max-files'] !== undefined && !/^[1-9][0-9]{0,6}$/.test(String(values['max-files']))
            ? `--max-files ${JSON.stringify(values['max-files'])} is not a whole number from 1 to 9999999`
            : null;
    if (problem) {
      console.error(`proofgate verify: ${problem}\n\n${USAGE}`);
      return 2;
    }
    // the SARIF path is written into $GITHUB_OUTPUT as sarif_file=PATH: a line break in it would
    // add outputs of its own after the real ones (admission=ADMIT), and the last value wins
    if ([values.sarif, values.output].some((p) => typeof p === 'string' && /[\r\n]/.test(p))) {
      console.error('proofgate verify: --sarif and --output paths may not contain a line break');
      return 2;
    }
    const optIn = insecureHttpOptIn(values['allow-insecure-http'] === true);
    if ('error' in optIn) {
      console.error(`proofgate verify: ${optIn.error}`);
      return 2;
    }
    const allowInsecureHttp = optIn.allow;
    const sources = new Map<string, string>();
    let files: string[] = [];
    // in FILE order: a file's requests, or the denial of a file that was not read
    const work: Array<Item | Outcome> = [];
    try {
      const root = realRoot(String(values.root ?? '.'));
      let schemaDdl: string | undefined;
      if (values.schema) {
        const real = insideRoot(root, String(values.schema));
        if (!real) throw new UsageError(`--schema ${String(values.schema)} resolves outside the root ${root} (see --root)`);
        try {
          schemaDdl = readFileSync(real, 'utf8');
        } catch (err) {
          throw new UsageError(fsProblem(err, String(values.schema), '--schema file'));
        }
      }
      const targets = expandTargets(paths, {
        kind: kind as Kind,
        root,
        include: (values.include as string[] | undefined ?? []).map((g) => rule(g)).filter((r): r is NonNullable<typeof r> => r !== null),
        exclude: (values.exclude as string[] | undefined ?? []).map((g) => rule(g)).filter((r): r is NonNullable<typeof r> => r !== null),
        language: values.language as string | undefined,
        maxFiles: values['max-files'] === undefined ? DEFAULT_MAX_FILES : Number(values['max-files']),
      });
      if (!targets.length) throw new UsageError(`no ${kind} files found in ${paths.join(', ')} (see --include, and .gitignore files that may exclude them)`);
      files = targets.map((x) => x.file);
      for (const { file: f, real } of targets) {
        if (!real) {
          work.push(outsideRootOutcome(kind as Kind, f, root));
          continue;
        }
        let t: string;
        try {
          t = readFileSync(real, 'utf8');
        } catch (err) {
          throw new UsageError(fsProblem(err, f, 'file'));
        }
        sources.set(f, t);
        work.push(...itemsOf(kind as Kind, f, t, { language: values.language as string | undefined, schemaDdl, dialect: values.dialect as string | undefined, allowWrites: !!values['allow-writes'] }));
      }
    } catch (err) {
      console.error(`proofgate verify: ${err instanceof UsageError ? err.message : (err as Error).message}`);
      return 2;
    }
    const apiKey = process.env.PROOFGATE_API_KEY;
    if (!values.local && !apiKey) {
      console.error('proofgate verify: no API key: set PROOFGATE_API_KEY to a key with verify:read (POST /auth/api-keys creates one), or use --local to run the engines in-process without a service');
      return 2;
    }
    const serviceUrl = String(values.url ?? process.env.PROOFGATE_URL ?? 'http://127.0.0.1:8080');
    let conn: { client: ProofgateClient; close(): Promise<void> };
    try {
      conn = values.local
        ? await localClient(kind as Kind, format === 'vc')
        : { client: new ProofgateClient({ baseUrl: serviceUrl, apiKey, allowInsecureHttp }), close: async () => undefined };
    } catch (err) {
      // nothing was checked: a service error (2), not a denial (1)
      console.error(`proofgate verify: ${values.local ? 'cannot run the engines in-process' : 'cannot use the service'}: ${(err as Error).message}`);
      return 2;
    }
    const outcomes: Outcome[] = [];
    const vcs: unknown[] = [];
    try {
      for (const [i, item] of work.entries()) {
        if ('answer' in item) {
          outcomes.push(item);
          const why = item.findings[0].message;
          console.error(files.length > 1 ? `[${i + 1}/${work.length}] ${item.item.file}:1 DENY — ${why}` : `proofgate verify: ${why}`);
          continue;
        }
        const answer = (await ROUTES[item.kind](conn.client, item.body)) as Record<string, unknown>;
        const o = judge(item, answer);
        outcomes.push(o);
        if (format === 'vc') vcs.push({ file: item.file, line: item.line, document: await toVerificationContext(conn.client, answer, { query: attestedQuery(item) }) });
        // a line per file helps a person watching a long run; in a pipe or a log it is noise unless asked for
        if (files.length > 1 && (process.stderr.isTTY || values.progress)) console.error(`[${i + 1}/${work.length}] ${item.file}:${item.line} ${o.admitted ? 'ADMIT' : 'DENY'}`);
      }
    } catch (err) {
      const why =
        err instanceof InsecureTransportError
          ? `${err.message.replace('allowInsecureHttp', '--allow-insecure-http (PROOFGATE_ALLOW_INSECURE_HTTP=1)')}; nothing was sent`
          : err instanceof ProofgateError || err instanceof ResponseTooLargeError
            ? err.message
            : `cannot reach the service at ${values.local ? 'the in-process engines' : serviceUrl}: ${(err as Error).message} (is proofgate running there? start one with \`proofgate start\`, point --url or $PROOFGATE_URL at it, or use --local)`;
      console.error(`proofgate verify: ${why}`);
      return 2;
    } finally {
      await conn.close();
    }
    const sarif = toSarif(outcomes, sources);
    const rendered =
      format === 'json'
        ? JSON.stringify({ summary: summary(outcomes), results: outcomes.map((o) => ({ file: o.item.file, line: o.item.line, admitted: o.admitted, findings: o.findings, answer: o.answer })) }, null, 2) + '\n'
        : format === 'sarif'
          ? JSON.stringify(sarif, null, 2) + '\n'
          : format === 'vc'
            ? JSON.stringify(vcs, null, 2) + '\n'
            : format === 'junit'
              ? toJunit(kind, outcomes)
              : text(outcomes);
    if (values.output) writeFileSync(String(values.output), rendered);
    else process.stdout.write(rendered);
    if (values.sarif) writeFileSync(String(values.sarif), JSON.stringify(sarif, null, 2) + '\n');
    const s = summary(outcomes);
    if (process.env.GITHUB_OUTPUT) {
      const sarifFile = values.sarif ? String(values.sarif) : format === 'sarif' && values.output ? String(values.output) : '';
      const lines = [`verified=${s.verified}`, `verdict=${s.verdict}`, `admission=${s.admitted ? 'ADMIT' : 'DENY'}`, `findings_count=${s.findings}`, `sarif_file=${sarifFile}`];
      if (s.proof_ref) lines.push(`proof_ref=${s.proof_ref}`);
      appendFileSync(process.env.GITHUB_OUTPUT, lines.join('\n') + '\n');
    }
    return s.admitted ? 0 : 1;
  },
});
