// Package buildstamp is what a build of the router or of the `shell`
// helper says about itself, and the one rule for whether a helper fits a
// router: the commit both were built from and the helper protocol
// (snapshot.Protocol, the contract between them). Everything else a build
// records — -trimpath, the other -ldflags, the toolchain's own settings —
// changes nothing a shell call does, so `go run` and `make` builds of one
// commit agree.
//
// The helper prints its stamp for `shell --version` (Line); the router
// reads it back (Parse) at startup and in `doctor`. The commit comes from
// the version `make` stamps (-X main.version=`git describe --always
// --dirty`), else from Go's VCS stamp (vcs.revision), else it is unknown.
package buildstamp
