import t from 'tap';
import { cpuStages, stageTable, type CpuProfile } from '../../../bench/cpu-stages.js';

/**
 * bench/cpu-stages.ts: each sample goes to the nearest project frame on its stack; a library or
 * builtin leaf under it inherits that frame's stage; samples with no project frame are node's own.
 */
const D = 'file:///repo/dist';
function profile(): CpuProfile {
  const nodes: CpuProfile['nodes'] = [
    { id: 1, callFrame: { functionName: '(root)', url: '' }, children: [2, 3, 4, 5, 9] },
    { id: 2, callFrame: { functionName: '(garbage collector)', url: '' } },
    { id: 3, callFrame: { functionName: '(idle)', url: '' } },
    { id: 4, callFrame: { functionName: 'onRequest', url: `${D}/core/http/server.js` }, children: [6] },
    { id: 5, callFrame: { functionName: 'parserOnHeaders', url: 'node:_http_common' } },
    { id: 6, callFrame: { functionName: 'attach', url: `${D}/plugins/attestation/attach.js` }, children: [7] },
    { id: 7, callFrame: { functionName: 'sign', url: 'file:///repo/node_modules/jose/dist/sign.js' }, children: [8] },
    { id: 8, callFrame: { functionName: 'sign', url: 'node:internal/crypto/sig' } },
    { id: 9, callFrame: { functionName: 'validate', url: `${D}/core/json/validate.js` }, children: [10] },
    { id: 10, callFrame: { functionName: 'validate12', url: '' } },
  ];
  // time before each sample, in µs
  return { nodes, samples: [8, 7, 10, 5, 2, 3, 4], timeDeltas: [100, 50, 30, 20, 40, 500, 10], startTime: 0, endTime: 750 };
}

t.test('samples are charged to the nearest project frame; node-only stacks, GC and idle apart', async (t) => {
  const { perStage, totalUs } = cpuStages(profile());
  t.equal(totalUs, 750);
  t.equal(perStage.get('sign'), 150, 'node crypto under jose under the attestation plugin is signing');
  t.equal(perStage.get('validate'), 30, "ajv's generated function (no url) under core/validate is validation");
  t.equal(perStage.get('node (no project frame)'), 20, 'the HTTP parser with no project caller');
  t.equal(perStage.get('gc'), 40);
  t.equal(perStage.get('idle'), 500);
  t.equal(perStage.get('http (node)'), 10, 'a leaf in core/http/server is its own');
});

t.test('the table: µs per request and share of the busy (non-idle) time, in request order', async (t) => {
  const rows = stageTable(profile(), 10);
  t.same(rows.map((r) => r.stage), ['http (node)', 'validate', 'sign', 'node (no project frame)', 'gc']);
  t.same(rows.find((r) => r.stage === 'sign'), { stage: 'sign', us_per_request: 15, share: 60 });
  t.notOk(rows.some((r) => r.stage === 'idle'), 'idle time is not a cost');
});
