/**
 * A V8 CPU profile of the sidecar's main thread, cut into the stages of one request (issue 45): each
 * sample is charged to the nearest frame of the project's own code on its stack, so a library call
 * counts for the stage that made it (jose under the attestation plugin is signing, ajv's generated
 * validators under core/validate are validation, node's socket writes under core/reply are the
 * reply). Samples with no project frame are node's own HTTP and socket work, the garbage collector,
 * or idle time.
 */
export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string }; children?: number[] }>;
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** the stages, in a request's order; a file of the project is matched by its path under dist/ */
const STAGES: Array<[stage: string, pattern: RegExp]> = [
  ['http (node)', /\/core\/(http\/(server|router|context)|plugin\/kit)\.js$/],
  ['parse body', /\/core\/(http\/body|json\/(syntax|strict|exact|depth))\.js$/],
  ['auth', /\/plugins\/auth\/(?!limiter|ratelimit)[^/]+\.js$|\/plugins\/agents\//],
  ['limit', /\/plugins\/auth\/(limiter|ratelimit)[^/]*\.js$/],
  ['validate', /\/core\/json\/validate\.js$/],
  ['hash', /\/core\/json\/canonical\.js$/],
  ['hop', /\/core\/workers\/[^/]+\.js$/],
  ['engine (main thread)', /\/plugins\/engines\//],
  ['sign', /\/plugins\/attestation\/|\/core\/keys\/es256\.js$|\/plugins\/a2a\/signer\.js$/],
  ['audit', /\/plugins\/audit\/|\/core\/store\/[^/]+\.js$/],
  ['reply', /\/core\/(http\/reply|verdict)\.js$/],
  ['pipeline', /\/core\/(http\/pipeline|app|obs\/tracing|obs\/metrics)\.js$/],
];

const OWN = /\/dist\/(core|plugins|sidecar)\//;

function stageOf(url: string): string | undefined {
  if (!OWN.test(url)) return undefined;
  for (const [stage, re] of STAGES) if (re.test(url)) return stage;
  return 'other (project)';
}

/** µs of main-thread time per stage, and how many µs the profile covered */
export function cpuStages(p: CpuProfile): { perStage: Map<string, number>; totalUs: number } {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const memo = new Map<number, string>();
  const stageFor = (id: number): string => {
    const known = memo.get(id);
    if (known) return known;
    const n = byId.get(id)!;
    const name = n.callFrame.functionName;
    let s: string;
    if (name === '(garbage collector)') s = 'gc';
    else if (name === '(idle)') s = 'idle';
    else if (name === '(program)') s = 'v8 / native';
    else {
      s = stageOf(n.callFrame.url) ?? '';
      if (!s) {
        const up = parent.get(id);
        s = up === undefined || byId.get(up)!.callFrame.functionName === '(root)' ? 'node (no project frame)' : stageFor(up);
      }
    }
    memo.set(id, s);
    return s;
  };
  const perStage = new Map<string, number>();
  let totalUs = 0;
  // timeDeltas[i] is the time before sample i: charge it to that sample's stack
  for (let i = 0; i < p.samples.length; i++) {
    const dt = p.timeDeltas[i] ?? 0;
    if (dt <= 0) continue;
    const s = stageFor(p.samples[i]);
    perStage.set(s, (perStage.get(s) ?? 0) + dt);
    totalUs += dt;
  }
  return { perStage, totalUs };
}

/** rows of the table: stage, µs per request, share of the busy (non-idle) time */
export function stageTable(p: CpuProfile, requests: number): Array<{ stage: string; us_per_request: number; share: number }> {
  const { perStage } = cpuStages(p);
  const busy = [...perStage].filter(([s]) => s !== 'idle').reduce((a, [, us]) => a + us, 0);
  const order = [...STAGES.map(([s]) => s), 'other (project)', 'node (no project frame)', 'gc', 'v8 / native'];
  return order
    .filter((s) => perStage.has(s))
    .map((stage) => ({ stage, us_per_request: Math.round((perStage.get(stage)! / Math.max(1, requests)) * 10) / 10, share: Math.round((perStage.get(stage)! / Math.max(1, busy)) * 1000) / 10 }));
}
