// Command testsummary reads `go test -json` on stdin and writes what
// plain `go test` would (one ok/FAIL line per package, the whole output of
// every failed test, build errors), then one closing block that lists
// every skipped test, grouped by the tool that would enable it:
//
//	skipped (needs Codex): 41 tests
//	  cmd/hpatch-router: TestE2E, TestE2ECodexVersions/0.144.0, …
//
// A test skipped through testenv.Missing says "skipped (needs TOOL): …";
// any other skip is listed under its own message. `make test` pipes into
// it, so a quick green run that left the e2e, browser or language-server
// tests out says so. Under CI=true a missing tool fails instead of
// skipping (testenv.Missing), so the block there holds only the deliberate
// skips. It exits 1 when a package failed or the stream was cut off.
package main
