package testuser

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hpatch-router/internal/testenv"
)

// User is a throwaway account with its own group and home directory.
type User struct {
	Name     string
	UID, GID int
	Home     string
	Shell    string // the passwd login shell
}

// New creates a user whose passwd login shell is shell (it must exist) and
// removes it, its home and every process it still runs when the test
// ends.
func New(t testing.TB, shell string) User {
	t.Helper()
	if os.Getuid() != 0 {
		testenv.Missing(t, "root", "a throwaway user: creating users")
	}
	testenv.NeedTool(t, "useradd")
	if _, err := os.Stat(shell); err != nil {
		testenv.Missing(t, filepath.Base(shell), "login shell %s is not installed", shell)
	}
	var b [4]byte
	rand.Read(b[:])
	name := "hpt" + hex.EncodeToString(b[:])
	if out, err := exec.Command("useradd", "--create-home", "--user-group", "--shell", shell, name).CombinedOutput(); err != nil {
		t.Fatalf("useradd %s: %v\n%s", name, err, out)
	}
	u := User{Name: name, Shell: shell}
	t.Cleanup(func() { u.remove(t) })
	line, err := exec.Command("getent", "passwd", name).Output()
	f := strings.Split(strings.TrimSpace(string(line)), ":")
	if err != nil || len(f) != 7 {
		t.Fatalf("getent passwd %s: %v %q", name, err, line)
	}
	u.UID, _ = strconv.Atoi(f[2])
	u.GID, _ = strconv.Atoi(f[3])
	u.Home = f[5]
	return u
}

// remove kills the user's processes by pid, then deletes the account and
// its home.
func (u User) remove(t testing.TB) {
	for i := 0; i < 50; i++ {
		pids := u.processes()
		if len(pids) == 0 {
			break
		}
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if out, err := exec.Command("userdel", "--remove", u.Name).CombinedOutput(); err != nil {
		t.Logf("userdel %s: %v\n%s", u.Name, err, out)
	}
}

// processes lists the pids whose real uid is the user's.
func (u User) processes() []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		var st syscall.Stat_t
		if syscall.Stat(filepath.Join("/proc", e.Name()), &st) == nil && int(st.Uid) == u.UID {
			pids = append(pids, pid)
		}
	}
	return pids
}

// SysProcAttr runs a command as the user (own process group, so a test
// can stop everything it started).
func (u User) SysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Credential: &syscall.Credential{Uid: uint32(u.UID), Gid: uint32(u.GID)}}
}

// Env is a login-like environment for the user: HOME, USER, LOGNAME and
// SHELL from the account, the rest of base without what belongs to the
// invoking user's session (TMPDIR, XDG_*). Append more after it: of two
// settings of one variable, exec uses the last.
func (u User) Env(base ...string) []string {
	env := []string{"HOME=" + u.Home, "USER=" + u.Name, "LOGNAME=" + u.Name, "SHELL=" + u.Shell}
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "HOME", k == "USER", k == "LOGNAME", k == "SHELL", k == "TMPDIR", strings.HasPrefix(k, "XDG_"):
			continue
		}
		env = append(env, kv)
	}
	return env
}

// Own gives each path, recursively, to the user.
func (u User) Own(t testing.TB, paths ...string) {
	t.Helper()
	for _, p := range paths {
		err := filepath.Walk(p, func(path string, _ os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(path, u.UID, u.GID)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// Dir makes a fresh directory owned by the user, mode 0700, inside a
// directory every user can traverse (a test's t.TempDir() is 0700 root).
func (u User) Dir(t testing.TB, name string) string {
	t.Helper()
	d := filepath.Join(u.Home, name)
	if err := os.MkdirAll(d, 0o700); err != nil {
		t.Fatal(err)
	}
	u.Own(t, d)
	return d
}

// Run runs a command as the user and fails the test when it fails.
func (u User) Run(t testing.TB, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.SysProcAttr = u.SysProcAttr()
	cmd.Env = u.Env("PATH=/usr/local/bin:/usr/bin:/bin")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s as %s: %v\n%s", name, strings.Join(args, " "), u.Name, err, out)
	}
}

// SharedTemp makes a fresh directory every user may create entries in,
// with the sticky bit, like /tmp; it is removed when the test ends.
func SharedTemp(t testing.TB) string {
	t.Helper()
	d, err := os.MkdirTemp("", "hpatch-shared-tmp-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	if err := os.Chmod(d, 0o1777); err != nil {
		t.Fatal(err)
	}
	return d
}
