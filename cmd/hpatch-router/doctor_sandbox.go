//go:build linux

package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"hpatch-router/ident"
	"hpatch-router/shebang"
	"hpatch-router/worker/snapshot"
)

// sandboxProbeBody is a Bash body the router sends to the worker (more
// than one line: not a direct command); its output proves the worker ran.
const sandboxProbeBody = "echo hpatch-doctor-probe\necho ok\n"

// checkInCodexSandbox runs a worker command the way Codex does, inside
// `codex sandbox` with the shell Codex picks, through the registered
// launcher of a router serving this runtime root: a refusal that only
// shows inside the sandbox (where ownership looks different) shows here,
// with its fix, before the first model call. It needs Codex on PATH and a
// router that registered a binary, a helper that fits it and a config
// Codex loads; otherwise it is skipped, and the check that failed says
// what to fix. The probe
// thread directory it creates (hpatch-doctor-<random>) is removed after.
func checkInCodexSandbox(ctx context.Context, o doctorOptions, env doctorEnv, helperFits bool) check {
	c := check{Name: "sandbox", Title: "a worker command inside Codex's sandbox", Required: true, OK: true}
	path := env.getenv("PATH")
	codex, ok := lookPathIn("codex", path)
	if !ok {
		return c.skip("codex is not on PATH")
	}
	if !helperFits {
		return c.skip("no shell helper that fits this router (see the helper checks)")
	}
	if why := codexConfigUnloadable(o, env); why != "" {
		return c.skip(why + " (see Codex provider points at the router)")
	}
	root, digest := servedSnapshot(env)
	if digest == "" {
		return c.skip("no router has registered a binary in the runtime root (see the launchers check)")
	}
	login, err := env.passwdShell(env.uid)
	sh, ok := codexShell(login, path)
	if err != nil || !ok {
		return c.skip("no shell for Codex (see the login shell check)")
	}
	thread, cleanup, err := probeThread(root, digest)
	if err != nil {
		c.OK, c.Detail = false, "cannot prepare a probe thread in "+root+": "+err.Error()
		return c
	}
	defer cleanup()
	plan, err := shebang.Translate(sandboxProbeBody, shebang.Options{})
	if err != nil {
		c.OK, c.Detail = false, "cannot render the probe: "+err.Error()
		return c
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, codex, "sandbox", "--", sh, "-c", plan.Cmd)
	cmd.Env = append(env.shellEnv(), snapshot.ThreadEnv+"="+thread)
	for _, k := range []string{snapshot.RootEnv, "XDG_RUNTIME_DIR", "TMPDIR", "USER", "LOGNAME"} {
		if v := env.getenv(k); v != "" {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	if cfg, err := codexConfigPath(o, env); err == nil {
		cmd.Env = append(cmd.Env, "CODEX_HOME="+filepath.Dir(cfg))
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	runErr := cmd.Run()
	if runErr == nil && out.String() == "hpatch-doctor-probe\nok\n" {
		c.Detail = "ran through " + sh + " in `codex sandbox` (" + codex + ")"
		return c
	}
	c.OK = false
	c.Detail, c.Fix = sandboxFailure(runErr, out.String(), errb.String())
	return c
}

// servedSnapshot returns the runtime root and the digest of a snapshot a
// router registered there whose manifest reads ("" when none).
func servedSnapshot(env doctorEnv) (root, digest string) {
	root, err := snapshot.Root(env.getenv, env.uid)
	if err != nil || snapshot.CheckRoot(root, env.uid) != nil {
		return root, ""
	}
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		d := snapshot.DigestOf(e.Name())
		if d == "" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, e.Name(), snapshot.ManifestName))
		if err == nil && snapshot.Digest(data) == d {
			return root, d
		}
	}
	return root, ""
}

// probeThread creates a thread directory as the router lays it out
// (0700, scripts/, .runtime → the snapshot's launcher) under a fresh id,
// and a cleanup that removes it.
func probeThread(root, digest string) (thread string, cleanup func(), err error) {
	var b [8]byte
	rand.Read(b[:])
	thread = "doctor-" + hex.EncodeToString(b[:])
	if err := ident.Thread(thread); err != nil {
		return "", nil, err
	}
	dir := filepath.Join(root, ident.ThreadDirName(thread))
	cleanup = func() { os.RemoveAll(dir) }
	err = errors.Join(os.Mkdir(dir, 0o700), os.Mkdir(filepath.Join(dir, ident.ScriptsDirName), 0o700),
		os.Symlink(snapshot.LinkTarget(digest), filepath.Join(dir, ident.RuntimeLink)))
	if err != nil {
		cleanup()
		return "", nil, err
	}
	return thread, cleanup, nil
}

// sandboxFailure turns a failed probe into a detail and a fix: the
// helper's or worker's one-line refusal ("shell: problem; fix") when there
// is one, else what Codex said.
func sandboxFailure(runErr error, stdout, stderr string) (detail, fix string) {
	for line := range strings.SplitSeq(stderr, "\n") {
		if msg, ok := strings.CutPrefix(line, "shell: "); ok {
			if i := strings.LastIndex(msg, "; "); i >= 0 {
				return "refused inside Codex's sandbox: shell: " + msg, msg[i+2:]
			}
			return "refused inside Codex's sandbox: shell: " + msg, "fix what it names, then run doctor again"
		}
	}
	last := strings.TrimSpace(stderr)
	if i := strings.LastIndex(last, "\n"); i >= 0 {
		last = last[i+1:]
	}
	return "the probe failed inside `codex sandbox` (" + errString(runErr) + "): " + strings.TrimSpace(stdout+" "+last),
		"run `codex sandbox -- true`: Codex must be able to start its sandbox here"
}

func errString(err error) string {
	if err == nil {
		return "unexpected output"
	}
	return err.Error()
}
