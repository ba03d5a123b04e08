package router

// BenchStream is a test helper the external benchmarks (package
// router_test) use: they live there because they put package access's Guard in front of the
// router, the way serve runs it, and access imports this package.
var BenchStream = benchStream
