// Package accesstest sends HTTP requests to a router as another local
// user, for the cross-user tests of the packages that wire package access.
//
// The client is a copy of the running test binary, started as a throwaway
// user (package testuser; creating one needs root, which CI is). The test
// package's TestMain must call Main first, so that copy acts as the client
// instead of running the tests:
//
//	func TestMain(m *testing.M) {
//		accesstest.Main()
//		os.Exit(m.Run())
//	}
package accesstest
