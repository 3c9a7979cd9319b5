import t, { type Test } from 'tap';
import { isBlocking, type Finding } from '../../../plugins/engines/code/index.js';
import { analyzePython } from '../../../plugins/engines/code/analyze.js';

/**
 * Sources and values of the Python flow analysis outside Flask's decorators and the benchmark's forms
 * (rules 1.14.0): Django views are handlers; strong random values, a hash's digest and a URL of the
 * application are the program's own. Each admission has near misses that must still block.
 * Handlers written for these tests.
 */
const FLASK = 'from flask import Flask, request, session, redirect, url_for\nimport os, hashlib, secrets, random, uuid\napp = Flask(__name__)\n';
const route = (body: string): string => `${FLASK}@app.route('/r', methods=['POST'])\ndef handler():\n${body.replace(/^/gm, '    ')}\n`;
const blocking = (fs: Finding[]): string[] => fs.filter(isBlocking).map((f) => `${f.rule_id}@${f.line}`);

async function admits(t: Test, name: string, code: string): Promise<void> {
  const a = await analyzePython(code);
  t.ok(a.parseOk, `${name}: parses`);
  t.same(blocking(a.findings), [], `${name}: nothing blocks`);
}
async function flags(t: Test, name: string, code: string, rule: string): Promise<void> {
  const a = await analyzePython(code);
  t.ok(a.findings.some((f) => f.rule_id === rule && isBlocking(f)), `${name}: ${rule} (${blocking(a.findings).join(', ')})`);
}

t.test('a Django view is a handler: its request is the client', async (t) => {
  const DJ = 'from django.http import HttpResponse, JsonResponse\nfrom django.db import connection\nimport os\n';
  await flags(t, 'a page built from GET', `${DJ}def hello(request):\n    return HttpResponse('hi ' + request.GET.get('n', ''))\n`, 'python.flow.xss');
  await flags(t, 'a file named by POST', `${DJ}def show(request):\n    return HttpResponse(open('/srv/' + request.POST['f']).read())\n`, 'python.flow.pathtraver');
  await flags(t, 'a class-based view', `${DJ}class Show:\n    def get(self, request, *args):\n        return HttpResponse(open('/srv/' + request.GET['f']).read())\n`, 'python.flow.pathtraver');
  await flags(t, 'an annotated request', `${DJ}from django.http import HttpRequest\ndef show(req: HttpRequest):\n    os.system('ls ' + req.GET['d'])\n`, 'python.flow.cmdi');
  await admits(t, 'a constant page', `${DJ}def hello(request):\n    return HttpResponse('hi')\n`);
});

t.test('values the program makes itself', async (t) => {
  await admits(t, 'a strong token in the session', route("session['csrf'] = secrets.token_hex(16)\nsession['id'] = str(uuid.uuid4())\nreturn 'ok'"));
  await flags(t, 'a weak token in the session', route("session['csrf'] = str(random.random())\nreturn 'ok'"), 'python.flow.weakrand');
  await flags(t, 'a weak token hashed', route("t = hashlib.sha256(str(random.random()).encode()).hexdigest()\nsession['csrf'] = t\nreturn t"), 'python.flow.weakrand');
  await admits(t, 'the digest of a request value in the page', route("h = hashlib.sha256()\nh.update(request.form.get('n', '').encode())\nreturn 'digest ' + h.hexdigest()"));
  await flags(t, 'the hash object\'s name in the page', route("h = hashlib.sha256(request.form.get('n', '').encode())\nreturn 'digest ' + h.name + request.form.get('n', '')"), 'python.flow.xss');
  await flags(t, 'a weak hash still stands', route("return hashlib.md5(b'x').hexdigest()"), 'python.flow.hash');
  await admits(t, 'a redirect to a URL of the application', route("return redirect(url_for('handler', next=request.args.get('n', '')))"));
  await flags(t, 'a redirect to the request value', route("return redirect(request.args.get('n', ''))"), 'python.flow.redirect');
});
