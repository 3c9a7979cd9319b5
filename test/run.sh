#!/bin/sh
# The suite in two phases. First every test file, three at a time (package.json "tap"); then the
# files named *.serial.test.js, one at a time, with the machine to themselves: they hold the event
# loop of a server to a 50 ms bound while it works on the largest inputs it accepts, and beside
# other test files on two cores that bound measured the neighbours (an 8 MiB relay took a minute of
# wall time for four seconds of CPU) rather than the work the server's loop does.
# Arguments, when given, are passed to tap as one run (npm test -- dist/test/mcp/proxy.test.js).
if [ "$#" -gt 0 ]; then exec npx tap "$@"; fi
npx tap
parallel=$?
serial=$(find dist/test -name '*.serial.test.js' | sort)
npx tap --jobs=1 $serial
status=$?
[ "$parallel" -eq 0 ] && [ "$status" -eq 0 ]
