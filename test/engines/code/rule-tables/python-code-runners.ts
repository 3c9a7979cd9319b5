import { blockedOverHttp, pick, ruleTable } from '../rule-table.js';

/**
 * Ways to run arbitrary Python without naming exec/eval/os.system that the engine proved safe
 * (VERIFIED, is_valid true, ADMIT) before: standard-library functions that run a source string,
 * building a function from a code object through type(<function>), replacing __code__,
 * operator.attrgetter/methodcaller as getattr, subprocess's executable= keyword, and a builtin reached
 * through globals() by a computed key, which may be '__builtins__' (`globals()[k].exec(src)`).
 */
const CMD = `"__import__('os').system('id')"`;
const UNSAFE: Array<[name: string, src: string, rule: string]> = [
  ['pdb.run', `import pdb\npdb.run(${CMD})\n`, 'python.dangerous_call.code_string'],
  ['pdb.Pdb().runeval', `import pdb\npdb.Pdb().runeval(src)\n`, 'python.dangerous_call.code_string'],
  ['profile.run', `import profile\nprofile.run(${CMD})\n`, 'python.dangerous_call.code_string'],
  ['cProfile.runctx', `import cProfile\ncProfile.runctx(${CMD}, {}, {})\n`, 'python.dangerous_call.code_string'],
  ['cProfile.Profile().run through a name', `import cProfile\np = cProfile.Profile()\np.run(${CMD})\n`, 'python.dangerous_call.code_string'],
  ['trace.Trace().run', `import trace\ntrace.Trace().run(${CMD})\n`, 'python.dangerous_call.code_string'],
  ['timeit.timeit of a string', `import timeit\ntimeit.timeit(${CMD}, number=1)\n`, 'python.dangerous_call.code_string'],
  ['timeit.Timer stmt keyword', `from timeit import Timer\nTimer(stmt=${CMD}).timeit(1)\n`, 'python.dangerous_call.code_string'],
  ['timeit setup string', `import timeit\ntimeit.repeat(lambda: 0, ${CMD})\n`, 'python.dangerous_call.code_string'],
  ['type(lambda) builds a function', `f = type(lambda: 0)(compile(${CMD}, '', 'exec'), {})\nf()\n`, 'python.dangerous_call.code_object'],
  ['type(def) through a name', `def g():\n    pass\nFT = type(g)\nFT(compile(${CMD}, '', 'exec'), {})()\n`, 'python.dangerous_call.code_object'],
  ['lambda __class__', `f = (lambda: 0).__class__(compile(${CMD}, '', 'exec'), {})\nf()\n`, 'python.dangerous_call.code_object'],
  ['__code__ replaced', `def g():\n    pass\ng.__code__ = compile(${CMD}, '', 'exec')\ng()\n`, 'python.dangerous_call.code_object'],
  ['operator.attrgetter', `import operator, os\noperator.attrgetter('system')(os)('id')\n`, 'python.dangerous_call.getattr_dangerous_name'],
  ['operator.attrgetter dotted', `import operator, os\noperator.attrgetter('path.os.sys' + 'tem')(os)('id')\n`, 'python.dangerous_call.getattr_dangerous_name'],
  ['operator.methodcaller', `from operator import methodcaller\nimport os\nmethodcaller('system', 'id')(os)\n`, 'python.dangerous_call.getattr_dangerous_name'],
  ['subprocess executable= shell', `import subprocess\nsubprocess.run(['x', '-c', 'id'], executable='/bin/sh')\n`, 'python.process.interpreter'],
  ['subprocess executable= computed', `import subprocess\nsubprocess.run(['ls'], executable=prog)\n`, 'python.process.dynamic_program'],
  // globals() holds '__builtins__' (the builtins module in __main__, its dict in other modules)
  ['globals()[computed].exec', "k = input()\nglobals()[k].exec('import os; os.system(\"id\")')\n", 'python.dangerous_call.exec'],
  ['globals()[computed][exec]', "globals()[k]['exec'](src)\n", 'python.dangerous_call.exec'],
  ['globals().get(computed).eval', 'b = globals().get(k)\nb.eval(src)\n', 'python.dangerous_call.eval'],
];

const SAFE: Array<[name: string, src: string]> = [
  ['timeit of a lambda', 'import timeit\ntimeit.timeit(lambda: sum(range(10)), number=5)\n'],
  ['timeit of a def', 'import timeit\ndef work():\n    return 1\ntimeit.timeit(work, number=5)\n'],
  ['type() of data', 'x = 3\nprint(type(x).__name__, type(x)(4))\n'],
  ['class name of a function', 'def g():\n    pass\nprint(g.__class__.__name__)\n'],
  ['reading __code__', 'def g():\n    pass\nprint(g.__code__.co_name)\n'],
  // a computed globals() lookup stays MEDIUM unless a dangerous builtin is then called on it
  ['globals()[computed] as a factory', "class A:\n    pass\nobj = globals()[name](**kw)\nglobals()[name] = obj\nprint(globals()[name].__doc__)\n"],
  ['attrgetter of data', 'import operator\nrows.sort(key=operator.attrgetter("name", "address.city"))\n'],
  ['methodcaller of data', 'from operator import methodcaller\nlist(map(methodcaller("strip"), lines))\n'],
  ['cProfile around a call', 'import cProfile\np = cProfile.Profile()\np.enable()\nwork()\np.disable()\n'],
  ['subprocess executable= program', "import subprocess\nsubprocess.run(['ls', '-l'], executable='/bin/ls')\n"],
  ['subprocess executable=None', "import subprocess\nsubprocess.run(['ls', '-l'], executable=None)\n"],
];

ruleTable('python code runners', 'python', UNSAFE, SAFE);

blockedOverHttp('POST /verify/code answers BLOCKED admission for pdb.run, type(lambda) and globals()[k].exec', pick(UNSAFE, ['pdb.run', 'type(lambda) builds a function', 'globals()[computed].exec'], 'python'));
