//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"hpatch-router/internal/buildstamp"
)

const doctorUsage = "Usage: hpatch-router doctor [--json] [--router URL] [--codex-home DIR]\n\n" +
	"Check the installation: the shell helper, the runtime root, the shell Codex runs\n" +
	"commands with (from your passwd entry) and bash, a worker command run inside\n" +
	"`codex sandbox` as Codex runs it (when codex is on PATH and a router serves),\n" +
	"optional tools, Codex's config.toml\n" +
	"(read only), the running router (that you own the process at its address) and the\n" +
	"upstream behind it. Exit status 0 only when every required check passes; advisory\n" +
	"checks never change it.\n\nFlags:\n"

// check is one doctor finding.
type check struct {
	Name     string `json:"name"`     // stable identifier for scripts
	Title    string `json:"title"`    // what was checked
	Required bool   `json:"required"` // a failure makes the exit status 1
	OK       bool   `json:"ok"`
	// Skipped: not run, because another check failed or what it needs is
	// absent; Detail says why. It never fails the exit status itself.
	Skipped bool   `json:"skipped,omitempty"`
	Detail  string `json:"detail"`        // what was found
	Fix     string `json:"fix,omitempty"` // what to do when not OK
}

// skip marks c as not run, for the reason why.
func (c check) skip(why string) check {
	c.OK, c.Skipped, c.Detail, c.Fix = false, true, "skipped: "+why, ""
	return c
}

// doctorEnv is everything the checks read from the machine, so tests can
// drive them with fake environments.
type doctorEnv struct {
	getenv      func(string) string
	homeDir     func() (string, error)
	uid         int
	passwdShell func(uid int) (string, error) // the login shell Codex reads
	selfExe     func() (string, error)        // this router binary
	selfStamp   buildstamp.Stamp              // this router's commit and helper protocol
	// helperStamp asks a helper for its stamp (helperStampOf).
	helperStamp func(ctx context.Context, path string) (buildstamp.Stamp, error)
	client      *http.Client
	// serverOwner finds who listens at the router's address
	// (access.ServerOwner when nil).
	serverOwner func(net.Conn) (uid int, known bool, err error)
}

func osDoctorEnv() doctorEnv {
	return doctorEnv{
		getenv: os.Getenv, homeDir: os.UserHomeDir, uid: os.Getuid(), passwdShell: passwdShell,
		selfExe: os.Executable, selfStamp: selfStamp(), helperStamp: helperStampOf,
		client: &http.Client{Timeout: 10 * time.Second},
	}
}

// shellEnv is the environment a probe shell runs with: the variables that
// decide how a shell reads a command (PATH, HOME for its startup files,
// the locale).
func (e doctorEnv) shellEnv() []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE"} {
		if v := e.getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// doctorOptions are the flags.
type doctorOptions struct {
	json      bool
	router    string // router base URL, e.g. http://127.0.0.1:8080
	codexHome string // overrides $CODEX_HOME / ~/.codex
}

// runDoctor is `hpatch-router doctor`.
func runDoctor(ctx context.Context, args []string, s stdio) int {
	return doctorMain(ctx, args, osDoctorEnv(), s)
}

func doctorMain(ctx context.Context, args []string, env doctorEnv, s stdio) int {
	fs := pflag.NewFlagSet("doctor", pflag.ContinueOnError)
	var o doctorOptions
	fs.BoolVar(&o.json, "json", false, "print a JSON array of checks instead of text")
	fs.StringVar(&o.router, "router", "http://127.0.0.1:8080", "base URL of the running router (its --listen address)")
	fs.StringVar(&o.codexHome, "codex-home", "", "Codex home directory (default $CODEX_HOME, else ~/.codex)")
	if code, done := parseFlags(fs, args, doctorUsage, s); done {
		return code
	}
	router, err := normalizeRouterURL(o.router)
	if err != nil {
		fmt.Fprintf(s.err, "hpatch-router doctor: --router: %v\n", err)
		return 2
	}
	o.router = router
	checks := runChecks(ctx, o, env)
	if o.json {
		b, _ := json.MarshalIndent(checks, "", "  ")
		fmt.Fprintf(s.out, "%s\n", b)
	} else {
		printChecks(s.out, checks)
	}
	if failedRequired(checks) {
		return 1
	}
	return 0
}

// runChecks runs every check in a fixed order.
func runChecks(ctx context.Context, o doctorOptions, env doctorEnv) []check {
	path := env.getenv("PATH")
	var out []check
	self, _ := env.selfExe()
	helper := checkHelperOnPath(path, self)
	build := checkHelperBuild(ctx, helper, env)
	out = append(out, helper, build)
	health := checkRouterHealth(ctx, o.router, env.client)
	out = append(out, checkRuntimeRoot(env), checkRegisteredLaunchers(env, health.OK),
		checkOneRouterPerRoot(env, o.router, health.OK), checkLoginShell(ctx, env), checkBashOnPath(path),
		checkInCodexSandbox(ctx, o, env, build.OK))
	out = append(out, checkTools(path)...)
	out = append(out, checkToolFiles(env))
	out = append(out, checkCodexConfig(o, env)...)
	upstream := check{Name: "upstream-models", Title: upstreamTitle, Required: true}.skip("the router does not answer (see router answers /healthz)")
	if health.OK {
		upstream = checkUpstreamModels(ctx, o.router, env.client)
	}
	out = append(out, checkRouterOwner(ctx, o.router, env.uid, env.serverOwner), health, upstream)
	return out
}

// Marks of the text output: passed, failed, and not run (skipped, with
// the reason, never a pass or a failure of its own).
const (
	markOK      = "✓"
	markFailed  = "✗"
	markSkipped = "○"
)

// printChecks writes one line per check, with the fix indented below a
// failure, and a closing verdict.
func printChecks(w io.Writer, checks []check) {
	fmt.Fprintln(w, "hpatch-router doctor: required checks decide the exit status; advisory ones only inform; "+markSkipped+" did not run.")
	failedReq, failedAdv, skipped := 0, 0, 0
	for _, c := range checks {
		mark := markOK
		switch {
		case c.Skipped:
			mark = markSkipped
			skipped++
		case !c.OK:
			mark = markFailed
			if c.Required {
				failedReq++
			} else {
				failedAdv++
			}
		}
		kind := "required"
		if !c.Required {
			kind = "advisory"
		}
		fmt.Fprintf(w, "%s %s (%s): %s\n", mark, c.Title, kind, c.Detail)
		if !c.OK && !c.Skipped && c.Fix != "" {
			fmt.Fprintf(w, "    fix: %s\n", c.Fix)
		}
	}
	skippedNote := ""
	if skipped > 0 {
		skippedNote = fmt.Sprintf(" %d skipped.", skipped)
	}
	switch {
	case failedReq > 0:
		fmt.Fprintf(w, "%d required check(s) failed; %d advisory.%s\n", failedReq, failedAdv, skippedNote)
	case failedAdv > 0:
		fmt.Fprintf(w, "All required checks passed; %d advisory check(s) did not.%s\n", failedAdv, skippedNote)
	default:
		fmt.Fprintf(w, "All checks passed.%s\n", skippedNote)
	}
}

// failedRequired reports whether a required check ran and failed: the
// exit status. A skipped check points at the one that failed.
func failedRequired(checks []check) bool {
	for _, c := range checks {
		if c.Required && !c.OK && !c.Skipped {
			return true
		}
	}
	return false
}

// normalizeRouterURL accepts http(s)://host:port[/][v1] or host:port and
// returns scheme://host:port without a trailing slash or /v1.
func normalizeRouterURL(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := parseHTTPURL(s)
	if err != nil {
		return "", fmt.Errorf("%q: %w", raw, err)
	}
	p := strings.TrimSuffix(strings.TrimRight(u.Path, "/"), "/v1")
	if p != "" {
		return "", fmt.Errorf("%q: give the router's address without a path (e.g. http://127.0.0.1:8080)", raw)
	}
	return u.Scheme + "://" + u.Host, nil
}
