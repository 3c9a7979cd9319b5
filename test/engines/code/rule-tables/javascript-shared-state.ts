import { blockedOverHttp, pick, ruleTable } from '../rule-table.js';

/**
 * State one entry point writes outlives its call (rules 1.14.0, python/flow's `moduleWrites` ported to
 * JavaScript): one Express handler stores request data in a module-level object, array, Map, Set, `let`,
 * closure variable, class static field, `module.exports` or an ESM export, and another runs a command read
 * from it (itself or through a helper). Most unsafe rows were admitted before (the reader saw the
 * module's first value, 'ls'); so were the rows where a timer, or a handler, reads a name the module
 * rebinds after registering it, a function made in a branch (entered from the branch's copy of the
 * names), and one made in two scopes (entered only from the first). The nested member, Map, Set,
 * Object.assign, alias and globalThis rows blocked already and stay as near misses. The safe rows are
 * state nobody writes: it stays constant. Handlers written for this test.
 */
const HEAD = "const express = require('express');\nconst child_process = require('child_process');\nconst app = express();\n";
const two = (state: string, write: string, read: string): string =>
  `${HEAD}${state}\napp.post('/set', (req, res) => { ${write}; res.end(); });\napp.get('/run', (req, res) => { child_process.exec(${read}); res.end(); });\n`;
const RULE = 'javascript.process.shell_injection';

const UNSAFE: Array<[name: string, src: string, rule: string]> = [
  ['a module object member', two("const CONFIG = { cmd: 'ls' };", 'CONFIG.cmd = req.body.cmd', 'CONFIG.cmd'), RULE],
  ['a computed member', two("const CONFIG = { cmd: 'ls' };", "CONFIG['c' + 'md'] = req.body.cmd", 'CONFIG.cmd'), RULE],
  ['a nested member', two("const CONFIG = { run: { cmd: 'ls' } };", 'CONFIG.run.cmd = req.body.cmd', 'CONFIG.run.cmd'), RULE],
  ['an array pushed to', two("const CMDS = ['ls'];", 'CMDS.push(req.body.cmd)', 'CMDS[CMDS.length - 1]'), RULE],
  ['an array index', two("const CMDS = ['ls'];", 'CMDS[0] = req.body.cmd', 'CMDS[0]'), RULE],
  ['a Map', two("const M = new Map([['c', 'ls']]);", "M.set('c', req.body.cmd)", "M.get('c')"), RULE],
  ['a Set', two("const S = new Set(['ls']);", 'S.add(req.body.cmd)', '[...S].pop()'), RULE],
  ['a let reassigned', two("let CMD = 'ls';", 'CMD = req.body.cmd', 'CMD'), RULE],
  ['a let destructured into', two("let CMD = 'ls';", '({ cmd: CMD } = req.body)', 'CMD'), RULE],
  ['Object.assign', two("const CONFIG = { cmd: 'ls' };", 'Object.assign(CONFIG, req.body)', 'CONFIG.cmd'), RULE],
  ['an alias of the object', two("const CONFIG = { cmd: 'ls' };", 'const c = CONFIG; c.cmd = req.body.cmd', 'CONFIG.cmd'), RULE],
  ['an alias of a nested object', two("const CONFIG = { run: { cmd: 'ls' } };", 'const r = CONFIG.run; r.cmd = req.body.cmd', 'CONFIG.run.cmd'), RULE],
  ["the object's own setter method", two("const CONFIG = { cmd: 'ls', put(v) { this.cmd = v; } };", 'CONFIG.put(req.body.cmd)', 'CONFIG.cmd'), RULE],
  ['a helper of the file writes it', two("const CONFIG = { cmd: 'ls' };\nfunction put(v) { CONFIG.cmd = v; }", 'put(req.body.cmd)', 'CONFIG.cmd'), RULE],
  ['a class static field', two("class C { static cmd = 'ls'; }", 'C.cmd = req.body.cmd', 'C.cmd'), RULE],
  ['a static method writing this', two("class C { static cmd = 'ls'; static put(v) { this.cmd = v; } }", 'C.put(req.body.cmd)', 'C.cmd'), RULE],
  ['module.exports', two("module.exports.cmd = 'ls';", 'module.exports.cmd = req.body.cmd', 'module.exports.cmd'), RULE],
  ['exports', two("exports.cmd = 'ls';", 'exports.cmd = req.body.cmd', 'exports.cmd'), RULE],
  ['globalThis', two("globalThis.cmd = 'ls';", 'globalThis.cmd = req.body.cmd', 'globalThis.cmd'), RULE],
  ['the reader registered first', `${HEAD}const CONFIG = { cmd: 'ls' };\napp.get('/run', (req, res) => { child_process.exec(CONFIG.cmd); res.end(); });\napp.post('/set', (req, res) => { CONFIG.cmd = req.body.cmd; res.end(); });\n`, RULE],
  ['a closure variable of two nested handlers', `${HEAD}function routes(app) {\n  let cmd = 'ls';\n  app.post('/set', (req, res) => { cmd = req.body.cmd; res.end(); });\n  app.get('/run', (req, res) => { child_process.exec(cmd); res.end(); });\n}\nmodule.exports = routes;\n`, RULE],
  ['a helper the reader calls', `${HEAD}const CONFIG = { cmd: 'ls' };\nfunction run() { child_process.exec(CONFIG.cmd); }\napp.post('/set', (req, res) => { CONFIG.cmd = req.body.cmd; res.end(); });\napp.get('/run', (req, res) => { run(); res.end(); });\n`, RULE],
  ['a closure helper the reader calls', `${HEAD}function routes(app) {\n  let cmd = 'ls';\n  function run() { child_process.exec(cmd); }\n  app.post('/set', (req, res) => { cmd = req.body.cmd; res.end(); });\n  app.get('/run', (req, res) => { run(); res.end(); });\n}\nmodule.exports = routes;\n`, RULE],
  ['an object the module exports (ESM)', "import { exec } from 'child_process';\nimport express from 'express';\nconst app = express();\nexport const CONFIG = { cmd: 'ls' };\napp.get('/run', (req, res) => { exec(CONFIG.cmd); res.end(); });\n", RULE],
  ['a timer reads what a handler wrote', `${HEAD}const CONFIG = { cmd: 'ls' };\napp.post('/set', (req, res) => { CONFIG.cmd = req.body.cmd; res.end(); });\nsetInterval(() => child_process.exec(CONFIG.cmd), 1000);\n`, RULE],
  ['a handler reads a name rebound after it', `${HEAD}let CMD = 'ls';\napp.get('/run', (req, res) => { child_process.exec(CMD); res.end(); });\nCMD = process.argv[2];\n`, 'javascript.flow.cmdi'],
  ['a function made in a branch, a name rebound after it', "const { exec } = require('child_process');\nlet cmd = 'ls';\nlet f;\nif (Math.random() > 0.5) { f = () => exec(cmd); }\ncmd = process.argv[2];\nmodule.exports = f;\n", 'javascript.flow.cmdi'],
  ['a function made in two scopes', "const { exec } = require('child_process');\nfunction mk(cmd) { return () => exec(cmd); }\nexports.safe = mk('ls');\nexports.make = function (c) { return mk(c); };\n", 'javascript.flow.cmdi'],
];

const SAFE: Array<[name: string, src: string]> = [
  ['a module object only read', two("const CONFIG = { cmd: 'ls' };", 'console.log(CONFIG.cmd)', 'CONFIG.cmd')],
  ['a module constant handed to a call', two("const CMD = 'ls';", 'console.log(CMD)', 'CMD')],
  ['another object written', two("const CONFIG = { cmd: 'ls' };\nconst LOG = [];", 'LOG.push(req.body.cmd)', 'CONFIG.cmd')],
  ['an array searched', two("const CMDS = ['ls', 'pwd'];", 'if (!CMDS.includes(req.body.c)) return res.end()', 'CMDS[0]')],
  ['a local object of the writer', two("const CONFIG = { cmd: 'ls' };", 'const mine = {}; mine.cmd = req.body.cmd', 'CONFIG.cmd')],
  ['a module object set up at top level', two("const CONFIG = {};\nCONFIG.cmd = 'ls';", 'res.set("x", "y")', 'CONFIG.cmd')],
  ['a helper reading a constant nobody writes', `${HEAD}const CONFIG = { cmd: 'ls' };\nfunction run() { child_process.exec(CONFIG.cmd); }\napp.get('/run', (req, res) => { run(); res.end(); });\n`],
  ['a timer of a constant nobody writes', `${HEAD}const CONFIG = { cmd: 'ls' };\nsetInterval(() => child_process.exec(CONFIG.cmd), 1000);\n`],
  ['a function made in a branch, constants after it', "const { exec } = require('child_process');\nlet cmd = 'ls';\nlet f;\nif (Math.random() > 0.5) { f = () => exec(cmd); }\ncmd = 'pwd';\nmodule.exports = f;\n"],
  ['a function made in two constant scopes', "const { exec } = require('child_process');\nfunction mk(cmd) { return () => exec(cmd); }\nexports.a = mk('ls');\nexports.b = mk('pwd');\n"],
];

ruleTable('JavaScript state one entry point writes and another reads', 'javascript', UNSAFE, SAFE);

blockedOverHttp(
  'POST /verify/code blocks JavaScript state a handler writes and another runs',
  pick(UNSAFE, ['a module object member', 'a helper the reader calls', 'an array pushed to', 'a let reassigned', 'a class static field', 'module.exports', 'a closure variable of two nested handlers', 'a timer reads what a handler wrote', 'a function made in two scopes'], 'javascript'),
  pick(SAFE, ['a module object only read', 'a module constant handed to a call', 'another object written', 'a function made in two constant scopes'], 'javascript'),
);
