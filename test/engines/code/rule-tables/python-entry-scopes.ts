import { blockedOverHttp, pick, ruleTable } from '../rule-table.js';

/**
 * A function queued as an entry point from several scopes (a nested function or lambda of a function
 * inlined at several calls) ran once, from the first scope that queued it, so the names it closes over
 * were read as that call's: each unsafe row was admitted (its first scope held 'ls'). It now runs from
 * the join of the scopes waiting, and again from each queued after it ran. The safe rows close over
 * constants in every scope. Code written for this test.
 */
const MK = 'import os, sys\ndef mk(cmd):\n    def run():\n        os.system(cmd)\n    return run\n';
const RULE = 'python.flow.cmdi';

const UNSAFE: Array<[name: string, src: string, rule: string]> = [
  ['a nested function, then a library caller', `${MK}safe = mk('ls')\ndef make(c):\n    return mk(c)\n`, RULE],
  ['a lambda, then a library caller', "import os\ndef mk(cmd):\n    return lambda: os.system(cmd)\nsafe = mk('ls')\ndef make(c):\n    return mk(c)\n", RULE],
  ['two scopes waiting together', `${MK}safe = mk('ls')\nother = mk(sys.argv[1])\n`, RULE],
  ['a route handler makes it second', "from flask import Flask, request\nimport os\napp = Flask(__name__)\ndef mk(cmd):\n    def run():\n        os.system(cmd)\n    return run\nsafe = mk('ls')\n@app.route('/r')\ndef r():\n    mk(request.args.get('c', ''))\n    return 'ok'\n", RULE],
];

const SAFE: Array<[name: string, src: string]> = [
  ['a nested function made from two constants', `${MK}a = mk('ls')\nb = mk('pwd')\n`],
  ['a lambda made from two constants', "import os\ndef mk(cmd):\n    return lambda: os.system(cmd)\na = mk('ls')\nb = mk('pwd')\n"],
];

ruleTable('Python functions entered from every scope that made them', 'python', UNSAFE, SAFE);

blockedOverHttp(
  'POST /verify/code blocks a Python closure made again from request data',
  pick(UNSAFE, ['a nested function, then a library caller', 'a route handler makes it second'], 'python'),
  pick(SAFE, ['a nested function made from two constants'], 'python'),
);
