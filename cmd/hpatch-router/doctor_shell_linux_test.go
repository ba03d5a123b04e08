package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hpatch-router/internal/testenv"
)

// The shell Codex runs commands with comes from the passwd entry (FACTS
// §8); the doctor names it and proves a rendered worker command reaches
// the helper byte for byte under it.
func TestDoctorLoginShell(t *testing.T) {
	type row struct {
		name, login string
		noBash      bool // PATH without bash
		ok          bool
		detail      string // substring of Detail
	}
	rows := []row{
		{name: "bash", login: "/bin/bash", ok: true, detail: "/bin/bash (passwd: /bin/bash): a worker command"},
		{name: "/bin/sh (dash on Debian)", login: "/bin/sh", ok: true, detail: "/bin/sh (passwd: /bin/sh)"},
		{name: "fish falls back to bash on PATH", login: "/usr/bin/fish", ok: true, detail: "/bash (passwd: /usr/bin/fish)"},
		{name: "nologin falls back to bash on PATH", login: "/usr/sbin/nologin", ok: true, detail: "(passwd: /usr/sbin/nologin)"},
		{name: "fish without bash on PATH", login: "/usr/bin/fish", noBash: true, detail: "falls back to bash, which is not on PATH"},
	}
	for _, sh := range []string{"zsh", "dash"} {
		p := testenv.NeedTool(t, sh)
		ok := sh == "zsh" // Codex runs dash only as sh; by its own name it falls back to bash
		rows = append(rows, row{name: sh, login: p, ok: true, detail: map[bool]string{true: p + " (passwd: " + p, false: "/bash (passwd: " + p}[ok]})
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			m := newFakeMachine(t)
			m.loginShell = r.login
			if r.noBash {
				must(t, os.Remove(filepath.Join(m.bin, "bash")))
			}
			c := checkLoginShell(context.Background(), m.doctorEnv())
			if c.OK != r.ok || !c.Required || !strings.Contains(c.Detail, r.detail) || !r.ok && c.Fix == "" {
				t.Fatalf("%+v; want ok=%v with %q", c, r.ok, r.detail)
			}
		})
	}
}

// A shell that does not pass the command through byte for byte fails
// the check and says how.
func TestDoctorLoginShellThatMangles(t *testing.T) {
	m := newFakeMachine(t)
	dir := t.TempDir()
	mangler := filepath.Join(dir, "sh") // named sh: Codex would use it as it is
	must(t, os.WriteFile(mangler, []byte("#!/bin/sh\nprintf 'shell\\0python3\\0print(1)\\0'\n"), 0o755))
	m.loginShell = mangler
	c := checkLoginShell(context.Background(), m.doctorEnv())
	if c.OK || !strings.Contains(c.Detail, "it changed the command") || c.Fix == "" {
		t.Fatalf("%+v", c)
	}
}

func TestDoctorBashOnPath(t *testing.T) {
	m := newFakeMachine(t)
	if c := checkBashOnPath(m.env["PATH"]); !c.OK || !c.Required {
		t.Fatalf("%+v", c)
	}
	must(t, os.Remove(filepath.Join(m.bin, "bash")))
	if c := checkBashOnPath(m.env["PATH"]); c.OK || c.Fix == "" {
		t.Fatalf("%+v", c)
	}
}

func TestPasswdLineShell(t *testing.T) {
	for _, c := range []struct {
		line string
		uid  int
		sh   string
		ok   bool
	}{
		{"alice:x:1000:1000:Alice,,,:/home/alice:/usr/bin/zsh", 1000, "/usr/bin/zsh", true},
		{"svc:x:999:999::/var/lib/svc:/bin/sh", 999, "/bin/sh", true},
		{"alice:x:1000:1000:Alice:/home/alice:/bin/bash", 1001, "", false},
		{"broken:x:1000", 1000, "", false},
	} {
		if sh, ok := passwdLineShell(c.line, c.uid); sh != c.sh || ok != c.ok {
			t.Errorf("passwdLineShell(%q, %d) = %q, %v", c.line, c.uid, sh, ok)
		}
	}
}
