#!/bin/sh
# The suite in three phases. First every test file, three at a time (package.json "tap"); then the
# files named *.serial.test.js, one at a time, with the machine to themselves: they hold the event
# loop of a server to a 50 ms bound while it works on the largest inputs it accepts, and beside
# other test files on two cores that bound measured the neighbours (an 8 MiB relay took a minute of
# wall time for four seconds of CPU) rather than the work the server's loop does.
# Arguments, when given, are passed to tap as one run (npm test -- dist/test/mcp/proxy.test.js).
# Every test file is its own process importing a few hundred modules, and so are the CLIs, sidecars
# and worker threads the tests start: V8's compile cache (Node >= 22.1) lets them reuse the code the
# first compiled instead of compiling it again (~12% less CPU over a run of 40 files here). It is
# keyed by each file's content; tap's own state directory holds it.
# every Python analysis of the suite also runs its flow analysis without the filters of flow/prefilter.ts
# and throws where a finding differs: the filters may only skip work that finds nothing
export PROOFGATE_FLOW_FILTER_CHECK="${PROOFGATE_FLOW_FILTER_CHECK:-1}"
export NODE_COMPILE_CACHE="${NODE_COMPILE_CACHE:-$(pwd)/.tap/compile-cache}"
# The phases run through test/runner.mjs, which starts each test file as a plain Node program: tap's
# own runner gives every test process two loader hooks (~1.5 s of CPU per file, see runner.mjs).
# Arguments, when given, go to tap itself as one run. tap builds its Test class for the plugins
# package.json names ("!@tapjs/typescript": the tests are compiled JavaScript) the first time it runs
# after an install, but that first run's runner has already read the default build's preloads and
# gives every test file ts-node's loader anyway, so tap is built first when its build does not match
# the configuration (test/tap-built.mjs makes the runner's own comparison). The test files themselves
# load the built Test class too, so the suite builds it as well. package.json leaves out the plugins no
# test uses (mock, snapshot, fixture, spawn, stdin, worker, chdir, filter, before-each, after-each):
# importing tap took 265 ms of CPU in every test file with them and 135 ms without (tsc refuses a test
# that calls one of their methods).
node test/tap-built.mjs 2>/dev/null || npx tap build >/dev/null || exit 1
if [ "$#" -gt 0 ]; then exec npx tap "$@"; fi
log=$(mktemp)
# sh has no pipefail: each phase writes its own exit status beside the log
{ node test/runner.mjs; echo $? > "$log.parallel"; } | tee "$log"
parallel=$(cat "$log.parallel")
{ node test/runner.mjs --serial --jobs 1; echo $? > "$log.serial"; } | tee -a "$log"
status=$(cat "$log.serial")
# Node 24 (issue 42): the suite runs on Node 22 (node@22, a devDependency: the machine's Node may be
# older); a cross-section of it runs again on Node 24, from the registry's node package through npm's
# cache: the stores (LMDB's native binding), the worker pool, each main engine over HTTP (z3's wasm,
# tree-sitter's native parser), sign-in, both proxies and the README's quick start; and the kernel's units and
# ext_authz's receiver choice, whose host parsing leans on the URL parser Node ships (Node 24's accepts the
# invalid A-label `xn--zz.mesh` that Node 22's refuses: core/http/host-name.ts now refuses it itself)
node24=$(npm exec --yes --package=node@24 -- node -p process.execPath 2>/dev/null | tail -n 1)
if [ -x "$node24" ]; then
  { env -u NODE_OPTIONS node test/runner.mjs --node "$node24" --jobs 2 dist/test/core/store.test.js dist/test/core/store-durable.test.js \
      dist/test/core/worker-pool.test.js dist/test/engines/math/route.test.js dist/test/engines/logic/route.test.js \
      dist/test/engines/code/route.test.js dist/test/auth/flow.test.js dist/test/operate/quickstart.test.js \
      dist/test/mcp/proxy.test.js dist/test/a2a/proxy.test.js dist/test/core/unit.test.js dist/test/a2a/ext-authz-receiver.test.js; echo $? > "$log.node24"; } | tee -a "$log"
  node24_status=$(cat "$log.node24")
else
  echo "# Node 24 could not be had (npm exec --package=node@24): the Node 24 phase fails"
  node24_status=1
fi
# a file can end non-zero with no failing assertion (a plan left short, an error after its last test
# point): name the phase and every file that did not pass, so the tail of a long log says why
echo "# test phases: parallel exit $parallel, serial exit $status, node 24 exit $node24_status"
grep -E '^not ok [0-9]+ - ' "$log" | sed 's/^/# failed: /'
if [ "$parallel" -ne 0 ] || [ "$status" -ne 0 ] || [ "$node24_status" -ne 0 ]; then
  # the runner's own lines (not a file's indented output): a short plan or a runner error shows here
  grep -vE '^(\s|ok [0-9]+ - |not ok [0-9]+ - |# Subtest: |# time=|$)' "$log" | tail -n 40 | sed 's/^/# runner: /'
fi
rm -f "$log" "$log.parallel" "$log.serial" "$log.node24"
[ "$parallel" -eq 0 ] && [ "$status" -eq 0 ] && [ "$node24_status" -eq 0 ]
