// Package registrytest gives the tests of the packages that offer and run
// declared tools (router, router/request) a tool set loaded the way serve
// loads one, from a TOML file in a tools directory, so each test states
// the file it means and none keeps its own copy of the loading.
//
// It lives beside registry, whose Load it calls; registry's own tests
// stay in package registry and write their directories themselves. It is
// imported by _test.go files only.
package registrytest
