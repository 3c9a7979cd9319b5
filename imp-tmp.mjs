import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
const { es256Sign, es256SignAsync } = await import('./dist/core/keys/es256.js');
const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const data = Buffer.from('x'.repeat(300));
const threadCpu = () => { const f = readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10000; };
const procCpu = () => { const c = process.cpuUsage(); return c.user + c.system; };
const N = 20000;
async function run(label, per, fn) {
  const c0 = threadCpu(); const p0 = procCpu(); const t0 = performance.now();
  for (let i = 0; i < N; i += per) { await new Promise((r) => setImmediate(r)); await Promise.all(Array.from({ length: per }, () => fn())); }
  console.log(label, 'per turn', per, 'main', ((threadCpu() - c0) / N).toFixed(1), 'process', ((procCpu() - p0) / N).toFixed(1), 'µs CPU per signature;', ((performance.now() - t0) * 1000 / N).toFixed(1), 'µs wall');
}
for (let rep = 0; rep < 2; rep++) {
  await run('sync ', 1, async () => es256Sign(data, privateKey));
  await run('async', 1, () => es256SignAsync(data, privateKey));
  await run('async', 4, () => es256SignAsync(data, privateKey));
  await run('sync ', 4, async () => es256Sign(data, privateKey));
}
