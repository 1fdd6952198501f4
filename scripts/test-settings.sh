# Sourced by every script that runs the test suite, so each runs it the same way.
#
# Swift Testing starts every test at once by default. On a two-core machine, hundreds of tests
# opening connections together overflowed the shared test server's listen queue and starved
# the tests whose limits are seconds (measured: 14,807 listen-queue overflows and 455 issues in
# one run; at most 16 tests at a time, a run is as fast — 30–35 s — and clean). Override with
# SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=N.
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-16}
