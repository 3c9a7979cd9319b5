import { blockedOverHttp, pick, ruleTable } from '../rule-table.js';

/**
 * Code the engine reads as data, run by a call: doctest runs the `>>>` examples of docstrings, strings
 * and text files as Python source; logging.config calls the callables a configuration names (a "()" or
 * "class" entry, called with the entry's other keys), evaluates a fileConfig file's args, and applies
 * whatever arrives on listen()'s socket. Each was VERIFIED, is_valid true, ADMIT before.
 */
const RUN = `">>> __import__('os').system('id')"`;
const UNSAFE: Array<[name: string, src: string, rule: string]> = [
  ['doctest.testmod', 'import doctest\nif __name__ == "__main__":\n    doctest.testmod(verbose=True)\n', 'python.dangerous_call.code_string'],
  ['doctest.testmod by an alias', 'from doctest import testmod as tm\ntm()\n', 'python.dangerous_call.code_string'],
  ['doctest.testfile', "import doctest\ndoctest.testfile('README.txt')\n", 'python.dangerous_call.code_string'],
  ['run_docstring_examples of a string', `import doctest\ndoctest.run_docstring_examples(${RUN}, {})\n`, 'python.dangerous_call.code_string'],
  ['run_docstring_examples of a computed value', 'import doctest\ndoctest.run_docstring_examples(input(), {})\n', 'python.dangerous_call.code_string'],
  ['DocTestRunner().run through names', "import doctest\nr = doctest.DocTestRunner()\nt = doctest.DocTestParser().get_doctest(s, {}, 'n', None, 0)\nr.run(t)\n", 'python.dangerous_call.code_string'],
  ['DocTestSuite for unittest', 'import doctest\ndef load_tests(loader, tests, ignore):\n    tests.addTests(doctest.DocTestSuite(mod))\n    return tests\n', 'python.dangerous_call.code_string'],
  ['a DocTestRunner subclass', 'import doctest\nclass R(doctest.DocTestRunner):\n    pass\nR().run(t)\n', 'python.dangerous_call.code_string'],
  ['doctest.debug_src', 'import doctest\ndoctest.debug_src(src)\n', 'python.dangerous_call.code_string'],
  ['doctest.testmod taken as a value', 'import doctest\nlist(map(doctest.testmod, mods))\n', 'python.dangerous_call.reference'],
  ['logging.config.listen', 'import logging.config\nt = logging.config.listen(9999)\nt.start()\n', 'python.dangerous_call.logging_config'],
  ['logging.config.fileConfig', "import logging.config\nlogging.config.fileConfig('logging.ini')\n", 'python.dangerous_call.logging_config'],
  ['dictConfig "()": "os.system"', "import logging.config\nlogging.config.dictConfig({'version': 1, 'handlers': {'h': {'()': 'os.system', 'command': 'id'}}})\n", 'python.dangerous_call.logging_config'],
  ['dictConfig "class": "subprocess.Popen"', "import logging.config\nlogging.config.dictConfig({'version': 1, 'handlers': {'h': {'class': 'subprocess.Popen', 'args': ['id']}}})\n", 'python.dangerous_call.logging_config'],
  ['dictConfig ext:// builtins.eval', "import logging.config\nlogging.config.dictConfig({'version': 1, 'filters': {'f': {'()': 'ext://builtins.eval', 'source': 'x'}}})\n", 'python.dangerous_call.logging_config'],
  ['dictConfig posix.system in dict()', "import logging.config\nlogging.config.dictConfig(dict(version=1, handlers={'h': {'()': 'posix.system', 'command': 'id'}}))\n", 'python.dangerous_call.logging_config'],
  ['dictConfig "()" callable os.system', "import logging.config, os\nlogging.config.dictConfig({'version': 1, 'filters': {'f': {'()': os.system}}})\n", 'python.dangerous_call.logging_config'],
  ['dictConfig assembled factory name', "import logging.config\nlogging.config.dictConfig({'version': 1, 'filters': {'f': {'()': 'o' + 's.sys' + 'tem', 'command': 'id'}}})\n", 'python.dangerous_call.logging_config'],
  ['dictConfig 3.12 queue factory', "import logging.config\nlogging.config.dictConfig({'version': 1, 'handlers': {'q': {'class': 'logging.handlers.QueueHandler', 'queue': {'()': 'subprocess.Popen', 'args': 'id'}}}})\n", 'python.dangerous_call.logging_config'],
  ['dictConfig factory writing a file', "import logging.config\nlogging.config.dictConfig({'version': 1, 'filters': {'f': {'()': 'io.open', 'file': 'x.pth', 'mode': 'w'}}})\n", 'python.dangerous_call.logging_config'],
  ['dictConfig of a computed configuration', 'import logging.config\nlogging.config.dictConfig(cfg)\n', 'python.dangerous_call.logging_config'],
  ['dictConfig of a loaded file', "import logging.config, yaml\nlogging.config.dictConfig(yaml.safe_load(open('log.yaml')))\n", 'python.dangerous_call.logging_config'],
  ['dictConfig with ** in it', "import logging.config\nlogging.config.dictConfig({'version': 1, **extra})\n", 'python.dangerous_call.logging_config'],
  ['dictConfig with a computed section', "import logging.config\nlogging.config.dictConfig({'version': 1, 'handlers': HANDLERS})\n", 'python.dangerous_call.logging_config'],
  ['dictConfig of a name changed elsewhere', "import logging.config\nLOGGING = {'version': 1, 'handlers': {}}\nLOGGING['handlers']['h'] = {'()': 'os.system', 'command': 'id'}\nlogging.config.dictConfig(LOGGING)\n", 'python.dangerous_call.logging_config'],
  ['dictConfig factory from a table', "import logging.config\nK = {'a': 'logging.StreamHandler', 'b': 'subprocess.Popen'}\nlogging.config.dictConfig({'version': 1, 'handlers': {'h': {'class': K['a']}}})\n", 'python.dangerous_call.logging_config'],
  ['dictConfig factory from a table written elsewhere', "import logging.config\nK = {'a': 'logging.StreamHandler'}\nK['a'] = name\nlogging.config.dictConfig({'version': 1, 'handlers': {'h': {'class': K['a']}}})\n", 'python.dangerous_call.logging_config'],
  ['dictConfig factory of a call result', "import logging.config\nlogging.config.dictConfig({'version': 1, 'filters': {'f': {'()': pick_factory()}}})\n", 'python.dangerous_call.logging_config'],
  ['a configurator resolves a name', "import logging.config\nlogging.config.BaseConfigurator({}).resolve('os.system')('id')\n", 'python.process.shell_exec'],
];

const SAFE: Array<[name: string, src: string]> = [
  ['doctest option flags and parsing', 'import doctest\nflags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE\nexamples = doctest.DocTestParser().parse(text)\n'],
  ['a docstring with examples, not run', 'def add(a, b):\n    """\n    >>> __import__("os").system("id")\n    """\n    return a + b\n'],
  ['logging.basicConfig', 'import logging\nlogging.basicConfig(level=logging.INFO)\n'],
  ['dictConfig of logging classes by name', "import logging.config, os\nLOGGING = {'version': 1, 'formatters': {'f': {'format': '%(message)s'}}, 'handlers': {'console': {'class': 'logging.StreamHandler', 'formatter': 'f', 'stream': 'ext://sys.stdout'}, 'file': {'class': 'logging.handlers.RotatingFileHandler', 'filename': os.path.join(BASE, 'x.log'), 'maxBytes': 1000}}, 'root': {'level': 'INFO', 'handlers': ['console']}}\nlogging.config.dictConfig(LOGGING)\n"],
  ['dictConfig with a section in a name', "import logging.config\nH = {'h': {'class': 'logging.StreamHandler'}}\nlogging.config.dictConfig({'version': 1, 'handlers': H})\n"],
  ['dictConfig of application factories', "from logging.config import dictConfig\ndictConfig({'version': 1, 'filters': {'rq': {'()': 'django.utils.log.RequireDebugFalse'}}, 'handlers': {'mail': {'class': 'django.utils.log.AdminEmailHandler', 'filters': ['rq']}}})\n"],
  ['dictConfig "()" of a class of the program', "import logging, logging.config\nclass MyHandler(logging.Handler):\n    pass\nlogging.config.dictConfig({'version': 1, 'handlers': {'h': {'()': MyHandler, 'level': 'INFO'}}})\n"],
  ['dictConfig factories from a constant table (pip)', "import logging.config\nclasses = {'stream': 'logging.StreamHandler', 'file': 'logging.handlers.RotatingFileHandler'}\nlogging.config.dictConfig({'version': 1, 'handlers': {'console': {'class': classes['stream'], 'level': level}, 'log': {'class': classes['file'], 'filename': path}}})\n"],
  ['dictConfig factory through functools.partial', "import functools, logging, logging.config\nclass Fmt(logging.Formatter):\n    pass\nlogging.config.dictConfig({'version': 1, 'formatters': {'f': {'()': functools.partial(Fmt, validate=False)}}})\n"],
  ['dictConfig then stopListening', "import logging.config\nlogging.config.dictConfig({'version': 1, 'loggers': {'': {'level': 'INFO'}}})\nlogging.config.stopListening()\n"],
];

ruleTable('python: doctest and logging.config run code held as data', 'python', UNSAFE, SAFE);

blockedOverHttp(
  'POST /verify/code answers BLOCKED admission for doctest and logging.config',
  pick(UNSAFE, ['doctest.testmod', 'run_docstring_examples of a string', 'logging.config.listen', 'dictConfig "()": "os.system"', 'dictConfig of a computed configuration'], 'python'),
  pick(SAFE, ['doctest option flags and parsing', 'dictConfig of logging classes by name'], 'python'),
);
