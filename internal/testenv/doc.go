// Package testenv owns what the project's tests need from the machine they
// run on, so every test asks for it the same way:
//
//   - NeedTool finds an external tool (bash, dash, node, rg, gopls, Codex,
//     chromium, …) on PATH. A missing tool skips the test on a developer's
//     machine and fails it under CI=true, where .ci/run installed every
//     tool and a skip would hide a regression.
//   - FreshHome gives a test (or a subprocess it starts) its own empty HOME,
//     XDG_* directories and TMPDIR, so nothing depends on caches, config or
//     state an earlier run left behind.
//   - Build compiles one of the product's binaries as `make install` does
//     (static), for tests that run the real router, helper or a stub.
//   - Buffer collects a subprocess's output while the test reads it.
//   - CPUTime and LoopCPU measure what a benchmark costs in the process's
//     CPU time, which a shared machine's load disturbs less than wall
//     time; Quantile and Paired summarise repeated measurements.
//
// It is imported by _test.go files only.
package testenv
