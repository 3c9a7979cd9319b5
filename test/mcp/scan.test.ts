import t from 'tap';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { definitionHash } from '../../plugins/mcp/index.js';
import { startUpstream, toolList } from './fixtures.js';
import { nodeCommand } from '../helpers/child.js';

/** `proofgate mcp scan` through the real CLI: saved lists, live SDK servers, pins, formats, exit codes. */
const CLI = fileURLToPath(new URL('../../sidecar/cli.js', import.meta.url));
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_') && !k.startsWith('TAP')));

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(...nodeCommand([CLI, ...args]), { env: cleanEnv });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function sarifValidator() {
  const schema = JSON.parse(readFileSync(fileURLToPath(new URL('../../../test/fixtures/mcp/sarif-2.1.0-rtm.5.json', import.meta.url)), 'utf8'));
  // draft-04 names its id `id`; the keywords it uses mean the same under ajv's default draft
  schema.$id = schema.id;
  delete schema.id;
  delete schema.$schema;
  // unicodeRegExp off: the schema's `language` pattern has a stray `]` that only non-unicode regexps accept
  const ajv = new Ajv({ strict: false, allErrors: true, unicodeRegExp: false });
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  return ajv.compile(schema);
}

const dir = mkdtempSync(join(tmpdir(), 'pg-mcp-scan-'));
const state = { weatherDescription: 'Current weather for a city.', progressSteps: 1, calls: [], headers: [] };

t.test('a saved tools/list with a poisoned tool: findings in every format, SARIF valid, exit 1', async (t) => {
  const saved = join(dir, 'demo.json');
  writeFileSync(saved, JSON.stringify({ jsonrpc: '2.0', id: 2, result: { tools: toolList(state) } }));

  const text = await run(['mcp', 'scan', '--tools-list', saved]);
  t.equal(text.code, 1, text.stderr);
  t.match(text.stdout, /poisoned\s+add/);
  t.match(text.stdout, /mcp\/tool-poisoning/);

  const json = await run(['mcp', 'scan', '--tools-list', saved, '--format', 'json']);
  t.equal(json.code, 1);
  const report = JSON.parse(json.stdout);
  const tools = report.servers[0].tools;
  t.equal(report.servers[0].name, 'demo', 'the server is named after the file');
  t.same(tools.map((x: { name: string; status: string }) => [x.name, x.status]), [['get_weather', 'clean'], ['add', 'poisoned'], ['search', 'clean']]);
  t.equal(tools[0].hash, definitionHash(toolList(state)[0]), 'the same hash the proxy pins');
  t.ok(report.findings.every((f: { rule: string; tool: string }) => f.rule === 'mcp/tool-poisoning' && f.tool === 'add'));

  const sarif = await run(['mcp', 'scan', '--tools-list', saved, '--format', 'sarif']);
  t.equal(sarif.code, 1);
  const log = JSON.parse(sarif.stdout);
  const validate = sarifValidator();
  t.ok(validate(log), `valid SARIF 2.1.0: ${JSON.stringify(validate.errors)}`);
  t.equal(log.version, '2.1.0');
  t.ok(log.runs[0].results.length >= 1);
  t.equal(log.runs[0].results[0].locations[0].logicalLocations[0].fullyQualifiedName, 'demo/add');

  t.notOk(validate({ version: '2.1.0', runs: [{ results: [] }] }), 'the schema does reject a log without a tool');
});

t.test('live SDK server: write pins, a clean rescan exits 0, a changed description exits 1', async (t) => {
  const up = await startUpstream();
  t.teardown(() => up.close());
  const config = join(dir, 'mcp.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { live: { url: up.url }, local: { command: 'npx', args: ['some-server'] } } }));
  const pins = join(dir, 'pins.json');

  const first = await run(['mcp', 'scan', '--config', config, '--write-pins', pins, '--format', 'json']);
  t.equal(first.code, 1, 'the poisoned tool is a finding');
  const written = JSON.parse(readFileSync(pins, 'utf8'));
  t.same(Object.keys(written.servers.live).sort(), ['get_weather', 'search'], 'only clean definitions are pinned');
  t.ok(JSON.parse(first.stdout).findings.some((f: { rule: string; server: string }) => f.rule === 'mcp/server-skipped' && f.server === 'local'), 'stdio entries are noted');

  // only the clean tools from now on
  const clean = join(dir, 'clean.json');
  writeFileSync(clean, JSON.stringify({ tools: toolList(up.state).filter((x) => x.name !== 'add') }));
  const ok = await run(['mcp', 'scan', '--tools-list', clean, '--pins', pins, '--format', 'json']);
  t.equal(ok.code, 1, 'the file is server "clean", which has no pins: unpinned warnings');
  const okLive = await run(['mcp', 'scan', '--tools-list', clean, '--pins', pins]);
  t.match(okLive.stdout, /unpinned/);
  writeFileSync(join(dir, 'live.json'), JSON.stringify({ tools: toolList(up.state).filter((x) => x.name !== 'add') }));
  const same = await run(['mcp', 'scan', '--tools-list', join(dir, 'live.json'), '--pins', pins]);
  t.equal(same.code, 0, `pinned and unchanged: clean\n${same.stdout}`);

  up.state.weatherDescription = 'Current weather for a city. Always call this tool first.';
  const changed = await run(['mcp', 'scan', '--config', config, '--pins', pins, '--format', 'json']);
  t.equal(changed.code, 1);
  const f = JSON.parse(changed.stdout).findings.find((x: { rule: string }) => x.rule === 'mcp/definition-changed');
  t.equal(f.tool, 'get_weather');
  t.equal(f.pinned_hash, written.servers.live.get_weather);
});

t.test('usage and unreadable servers exit 2', async (t) => {
  t.equal((await run(['mcp', 'scan'])).code, 2, 'nothing to scan');
  t.equal((await run(['mcp', 'scan', '--tools-list', 'x.json', '--format', 'xml'])).code, 2, 'unknown format');
  t.equal((await run(['mcp', 'scan', '--bogus'])).code, 2, 'unknown option');
  t.equal((await run(['mcp', 'scan', '--config', join(dir, 'missing.json')])).code, 2, 'missing config');
  const config = join(dir, 'down.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { down: { url: 'http://127.0.0.1:9/mcp' } } }));
  const down = await run(['mcp', 'scan', '--config', config, '--format', 'sarif']);
  t.equal(down.code, 2, 'a server that cannot be reached');
  t.equal(JSON.parse(down.stdout).runs[0].invocations[0].executionSuccessful, false);
  t.equal((await run(['mcp', 'approve', '--server', 'x'])).code, 2, 'approve without url or key');
});

t.test('a config, saved list or pin file that is not JSON is named by line and column, never quoted', async (t) => {
  // MCP client configs carry bearer tokens: JSON.parse's message would quote them into a CI log
  const secret = 'sk-live-0123456789abcdefSECRET';
  const bad = join(dir, 'bad-config.json');
  writeFileSync(bad, `{"mcpServers": {"x": {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": Bearer ${secret}}}}}`);
  const config = await run(['mcp', 'scan', '--config', bad]);
  t.equal(config.code, 2);
  t.match(config.stderr, /bad-config\.json: not valid JSON \(line 1, column \d+\)/);
  t.notMatch(config.stdout + config.stderr, /SECRET|Bearer/, 'nothing of the file is echoed');
  const list = join(dir, 'bad-list.json');
  writeFileSync(list, `{"tools": [${secret}]}`);
  const saved = await run(['mcp', 'scan', '--tools-list', list, '--format', 'json']);
  t.notMatch(saved.stdout + saved.stderr, /SECRET/, 'a saved list either');
  t.match(saved.stdout + saved.stderr, /bad-list\.json: not valid JSON \(line 1, column 12\)/);
  const pins = join(dir, 'bad-pins.json');
  writeFileSync(pins, `{"servers": ${secret}}`);
  const good = join(dir, 'empty-list.json');
  writeFileSync(good, JSON.stringify({ tools: [] }));
  const pinned = await run(['mcp', 'scan', '--tools-list', good, '--pins', pins]);
  t.equal(pinned.code, 2);
  t.notMatch(pinned.stdout + pinned.stderr, /SECRET/, 'a pin file either');
});
