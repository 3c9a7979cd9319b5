#!/bin/sh
# The suite in two phases. First every test file, three at a time (package.json "tap"); then the
# files named *.serial.test.js, one at a time, with the machine to themselves: they hold the event
# loop of a server to a 50 ms bound while it works on the largest inputs it accepts, and beside
# other test files on two cores that bound measured the neighbours (an 8 MiB relay took a minute of
# wall time for four seconds of CPU) rather than the work the server's loop does.
# Arguments, when given, are passed to tap as one run (npm test -- dist/test/mcp/proxy.test.js).
if [ "$#" -gt 0 ]; then exec npx tap "$@"; fi
log=$(mktemp)
# sh has no pipefail: each phase writes its own exit status beside the log
{ npx tap; echo $? > "$log.parallel"; } | tee "$log"
parallel=$(cat "$log.parallel")
serial=$(find dist/test -name '*.serial.test.js' | sort)
{ npx tap --jobs=1 $serial; echo $? > "$log.serial"; } | tee -a "$log"
status=$(cat "$log.serial")
# tap can end non-zero with no failing assertion (a plan left short, a file that exited after its
# last test point): name the phase and every file tap did not pass, so the tail of a long log says why
echo "# test phases: parallel exit $parallel, serial exit $status"
grep -E '^not ok [0-9]+ - ' "$log" | sed 's/^/# failed: /'
if [ "$parallel" -ne 0 ] || [ "$status" -ne 0 ]; then
  # the runner's own lines (not a file's indented output): a short plan or a runner error shows here
  grep -vE '^(\s|ok [0-9]+ - |not ok [0-9]+ - |# Subtest: |# time=|$)' "$log" | tail -n 40 | sed 's/^/# runner: /'
fi
rm -f "$log" "$log.parallel" "$log.serial"
[ "$parallel" -eq 0 ] && [ "$status" -eq 0 ]
