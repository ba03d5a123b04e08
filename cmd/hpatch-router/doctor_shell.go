//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"hpatch-router/shebang"
	"hpatch-router/shebang/oneline"
)

// shellProbeBody is a body with what quoting must get right: quotes,
// expansions, backslashes, line terminators, a control byte, non-ASCII
// and an invisible rune.
const shellProbeBody = "print('it''s \"q\" $HOME `id` \\\\ \\n é 😀')\r\n\tx = '\x01\u200b'\n"

// codexShell is the shell Codex runs an exec_command cmd with for a user
// whose passwd entry names loginShell (FACTS §8): bash, zsh and sh at
// their passwd path, anything else (fish, dash by that name, nologin, …)
// bash from PATH. ok is false when that bash is not on PATH.
func codexShell(loginShell, path string) (shell string, ok bool) {
	switch filepath.Base(loginShell) {
	case "bash", "zsh", "sh":
		return loginShell, true
	}
	return lookPathIn("bash", path)
}

// checkLoginShell reports the shell Codex will run carriers with for this
// user and whether a worker command survives it byte for byte: the shell
// runs a rendered `shell …` command with a function named shell that
// prints its argv, and the helper's decoding of that argv must give the
// probe back.
func checkLoginShell(ctx context.Context, env doctorEnv) check {
	c := check{Name: "login-shell", Title: "shell Codex runs commands with", Required: true}
	login, err := env.passwdShell(env.uid)
	if err != nil {
		c.Detail = "cannot read your passwd entry: " + err.Error()
		c.Fix = "make sure `getent passwd " + strconv.Itoa(env.uid) + "` answers"
		return c
	}
	sh, ok := codexShell(login, env.getenv("PATH"))
	if !ok {
		c.Detail = "your login shell is " + login + ", so Codex falls back to bash, which is not on PATH"
		c.Fix = "install bash (apt-get install bash)"
		return c
	}
	c.Detail = sh + " (passwd: " + login + ")"
	if problem := probeShell(ctx, sh, env); problem != "" {
		c.Detail += ": " + problem
		c.Fix = "run Codex with bash or zsh as your login shell (chsh -s /bin/bash), and report this shell to hpatch-router"
		return c
	}
	c.OK = true
	c.Detail += ": a worker command with quotes, $, backslashes, line breaks, controls and non-ASCII reached the helper byte for byte"
	return c
}

// probeShell runs SHELL -c on the rendered probe and returns what went
// wrong, or "".
func probeShell(ctx context.Context, sh string, env doctorEnv) string {
	plan, err := shebang.Translate("#!python3\n"+shellProbeBody, shebang.Options{})
	if err != nil {
		return "cannot render the probe: " + err.Error()
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, sh, "-c", `shell() { printf '%s\0' "$@"; }; `+plan.Cmd)
	cmd.Env = env.shellEnv()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return fmt.Sprintf("it failed on a rendered command (%v): %.200s", err, strings.TrimSpace(errb.String()))
	}
	args := strings.Split(strings.TrimSuffix(out.String(), "\x00"), "\x00")
	fields, body, err := oneline.ParseArgs(args)
	if err != nil {
		return "the helper could not decode what it passed on: " + err.Error()
	}
	if got := append(fields, body); !slices.Equal(got, plan.Argv) {
		return fmt.Sprintf("it changed the command: the helper would get %q instead of %q", got, plan.Argv)
	}
	return ""
}

// checkBashOnPath: direct commands and #!cmd= templates pin bash (when
// Codex's declaration offers the shell argument), which Codex looks up on
// PATH.
func checkBashOnPath(path string) check {
	c := check{Name: "bash", Title: "bash for direct commands and #!cmd= templates", Required: true}
	if p, ok := lookPathIn("bash", path); ok {
		c.OK, c.Detail = true, p
		return c
	}
	c.Detail = "bash is not on PATH; direct commands and templates are run with \"shell\":\"bash\""
	c.Fix = "install bash (apt-get install bash)"
	return c
}

// passwdShell returns the login shell of uid's passwd entry: /etc/passwd,
// else `getent passwd UID` (NSS users).
func passwdShell(uid int) (string, error) {
	if f, err := os.Open("/etc/passwd"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if sh, ok := passwdLineShell(sc.Text(), uid); ok {
				return sh, nil
			}
		}
	}
	out, err := exec.Command("getent", "passwd", strconv.Itoa(uid)).Output()
	if err != nil {
		return "", errors.New("uid " + strconv.Itoa(uid) + " is not in /etc/passwd and getent passwd does not know it")
	}
	if sh, ok := passwdLineShell(strings.TrimSpace(string(out)), uid); ok {
		return sh, nil
	}
	return "", errors.New("malformed passwd entry for uid " + strconv.Itoa(uid))
}

// passwdLineShell reads name:pw:uid:gid:gecos:home:shell.
func passwdLineShell(line string, uid int) (string, bool) {
	f := strings.Split(line, ":")
	if len(f) != 7 || f[2] != strconv.Itoa(uid) {
		return "", false
	}
	return f[6], true
}
