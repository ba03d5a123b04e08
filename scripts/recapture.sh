#!/bin/sh
# Re-record the Codex wire captures (testdata/codex/captures/<scenario>/)
# from the real Codex CLI played against the project's fake upstream
# (router/routertest). Run from anywhere; arguments go to the recorder:
#
#   scripts/recapture.sh                      # every scenario into testdata/codex/captures
#   scripts/recapture.sh -list                # what there is
#   scripts/recapture.sh -out /tmp/caps cli-lite-exec toplevel-exec
#   scripts/recapture.sh -codex-0144 /path/to/codex-0.144.0 flat-0.144.0-cli
#
# Codex: -codex BIN, else $HPATCH_CODEX_BIN, else the CI install
# (/opt/hpatch-ci/codex/node_modules/.bin/codex), else `codex` on PATH.
# After re-recording, run `go test ./router/ -run Capture -update` if the
# router's golden files must follow, and review the diff.
set -eu
cd "$(dirname "$0")/.."
exec go run ./router/routertest/cmd/recapture -repo . "$@"
