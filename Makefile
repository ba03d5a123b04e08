# hpatch-router — build, test and install.
GO        ?= go
BIN       := bin
# The version the binaries report. Where git cannot tell (no git, or root
# in a user's clone during `sudo make install`, which git refuses), the
# version the binaries in $(BIN) were built with stands, so install only
# copies them.
VERSION   := $(or $(VERSION),$(shell git describe --always --dirty 2>/dev/null || cat $(BIN)/version 2>/dev/null || echo dev))
LDFLAGS   := -s -w -X main.version=$(VERSION)
GOBIN_DIR := $(or $(shell $(GO) env GOBIN),$(shell $(GO) env GOPATH)/bin)
# `make install` puts the two binaries in BINDIR: $(PREFIX)/bin when PREFIX
# is given (`sudo make install PREFIX=/usr/local`, a distribution package's
# /usr), else the user's Go bin directory. DESTDIR is prepended for a staged
# install (packaging); `make uninstall` takes the same variables.
PREFIX    ?=
DESTDIR   ?=
BINDIR    ?= $(if $(PREFIX),$(PREFIX)/bin,$(GOBIN_DIR))
INSTALLED := $(DESTDIR)$(BINDIR)
TARGET_OS := $(shell $(GO) env GOOS)
LISTEN    ?= 127.0.0.1:8080
UPSTREAM  ?= https://chatgpt.com/backend-api/codex
FUZZTIME  ?= 10s
# The router binary is also the worker every shell call starts: built
# without cgo it is static, and each start skips the dynamic loader and
# libc's start-up (measured: 0.7 ms of a 2.7 ms worker start).
STATIC    := CGO_ENABLED=0

.PHONY: all build bundle test test-only cross fuzz bench install uninstall run clean linux-only

all: bundle build

# The worker rests on Linux mechanisms; installing or running it elsewhere
# stops here with the line the binaries themselves would print.
linux-only:
	$(if $(filter linux,$(TARGET_OS)),,$(error the shell worker needs Linux for now (this is $(TARGET_OS)); docs/macos.md has the macOS plan))

build: $(BIN)/hpatch-router $(BIN)/shell

# What the binaries are built from: every file of the module's package
# directories outside tests and test data (a new package is picked up
# without a change here), and the version they report, $(BIN)/version,
# which is rewritten only when it changes: a new commit rebuilds them even
# when it changed only documentation, so --version never names an older
# one. `sudo make install` finds them up to date and only copies: no Go
# runs as root.
SOURCES := go.mod go.sum $(BIN)/version $(shell find $(filter-out $(BIN) deploy docs scripts testdata,$(patsubst %/,%,$(wildcard */))) -type f -not -name '*_test.go' -not -path '*/testdata/*')
$(shell mkdir -p $(BIN) && [ "$$(cat $(BIN)/version 2>/dev/null)" = '$(VERSION)' ] || echo '$(VERSION)' > $(BIN)/version)

$(BIN)/hpatch-router: $(SOURCES)
	@mkdir -p $(BIN)
	$(STATIC) $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $@ ./cmd/hpatch-router

$(BIN)/shell: $(SOURCES)
	@mkdir -p $(BIN)
	$(STATIC) $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $@ ./cmd/shell-helper

# The router embeds plugins/shell.bundle.json, generated from plugins/shell.mjs.
# The generated file is committed, so `go build` never needs node.
bundle:
	@if command -v node >/dev/null 2>&1; then node plugins/build.mjs; \
	else echo "node not found: keeping the committed plugins/shell.bundle.json"; fi

test: cross
	$(GO) vet ./...
	@$(MAKE) -s test-only

# The tests through internal/testsummary: go test's own ok/FAIL lines and
# failures, then one block that lists every skipped test with the tool
# that would enable it (a missing tool fails instead under CI=true). PKGS
# and TESTFLAGS narrow a run (make test-only PKGS=./router TESTFLAGS='-run X|Y'):
# they reach go test as words, never as shell syntax.
PKGS      ?= ./...
TESTFLAGS ?=
test-only:
	@mkdir -p $(BIN)
	@$(GO) build -o $(BIN)/testsummary ./internal/testsummary
	@TESTFLAGS='$(TESTFLAGS)' PKGS='$(PKGS)' bash -f -o pipefail -c '$(GO) test -race -count=1 -timeout 25m -json $$TESTFLAGS $$PKGS 2>&1 | $(BIN)/testsummary'

# The router, shebang and retain packages stay portable: the darwin build
# must compile (its serve and shell stop with one line; docs/macos.md), and
# so must their tests, which vet type-checks: a test that needs the
# Linux-only worker or serve code is named *_linux_test.go.
cross:
	GOOS=darwin GOARCH=arm64 $(STATIC) $(GO) build ./...
	GOOS=darwin GOARCH=arm64 $(STATIC) $(GO) vet ./...

# A short run of every fuzz target (FUZZTIME each).
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; done

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Each file is written beside its place and renamed over it: a shell call
# during the install runs the old file or the new one, never half of one,
# and a running router keeps its own inode, which /proc/PID/exe then shows
# as "(deleted)": only then does install say to restart it (on a first
# install, or with no router running, there is nothing to restart).
# 0755 whatever the umask: the helper runs only a launcher target nobody
# else can write.
install: linux-only build
	install -d $(INSTALLED)
	@set -e; for f in hpatch-router shell; do \
	  echo "install -m 0755 $(BIN)/$$f $(INSTALLED)/$$f"; \
	  install -m 0755 $(BIN)/$$f $(INSTALLED)/.$$f.new; \
	  mv -f $(INSTALLED)/.$$f.new $(INSTALLED)/$$f; \
	done
	@echo "installed $(INSTALLED)/hpatch-router and $(INSTALLED)/shell"
	@for e in /proc/[0-9]*/exe; do readlink "$$e"; done 2>/dev/null | grep -qxF '$(abspath $(INSTALLED))/hpatch-router (deleted)' && \
	  echo "a router started from the replaced binary is still running; its shell calls are refused (126) until you restart it (systemctl --user restart hpatch-router)" || true

uninstall:
	rm -f $(INSTALLED)/hpatch-router $(INSTALLED)/shell

run: linux-only
	$(STATIC) $(GO) run -ldflags '$(LDFLAGS)' ./cmd/hpatch-router serve --listen $(LISTEN) --upstream $(UPSTREAM)

clean:
	rm -rf $(BIN)
