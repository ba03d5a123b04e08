//go:build linux

package snapshot

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestBodyArg(t *testing.T) {
	for _, fd := range []int{3, 4, 17, 1023} {
		if got, ok := ParseBodyArg(BodyArg(fd)); !ok || got != fd {
			t.Errorf("ParseBodyArg(BodyArg(%d)) = %d, %v", fd, got, ok)
		}
	}
	for _, arg := range []string{"", "/dev/fd/", "/dev/fd/0", "/dev/fd/2", "/dev/fd/03", "/dev/fd/3x", "/dev/fd/-3", "/dev/fd/99999999999", "/proc/self/fd/3", "print(1)", "/dev/fd/3\n"} {
		if fd, ok := ParseBodyArg(arg); ok {
			t.Errorf("ParseBodyArg(%q) = %d, want refused", arg, fd)
		}
	}
}

// The handoff round trip in one process: what HandOver seals is what
// TakeBody accepts and ReadBody returns, whatever the descriptor offset;
// the descriptor is sealed against writes and close-on-exec once taken.
func TestHandOverTakeBody(t *testing.T) {
	body := "import sys\n\x00\xff" + strings.Repeat("é", 70000)
	fd, err := HandOver(body)
	if err != nil {
		t.Fatal(err)
	}
	if flags, _ := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); flags&unix.FD_CLOEXEC != 0 {
		t.Error("the handed-over descriptor would not survive exec")
	}
	f, err := TakeBody(BodyArg(fd))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if flags, _ := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); flags&unix.FD_CLOEXEC == 0 {
		t.Error("a taken descriptor must not leak into the script's commands")
	}
	if _, err := unix.Write(fd, []byte("x")); err == nil {
		t.Error("the body descriptor is writable")
	}
	if _, err := unix.Seek(fd, 5, 0); err != nil {
		t.Fatal(err)
	}
	got, err := ReadBody(f)
	if err != nil || got != body {
		t.Fatalf("ReadBody: %d bytes, %v; want the %d-byte body", len(got), err, len(body))
	}
}

func TestTakeBodyRefusesOtherDescriptors(t *testing.T) {
	unsealed, err := unix.MemfdCreate("x", unix.MFD_CLOEXEC)
	if err != nil {
		t.Skip("memfd_create:", err)
	}
	defer unix.Close(unsealed)
	file, err := os.Create(filepath.Join(t.TempDir(), "body"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for name, arg := range map[string]string{
		"a body in argv":      "print(1)",
		"an unsealed memfd":   BodyArg(unsealed),
		"a regular file":      BodyArg(int(file.Fd())),
		"a closed descriptor": BodyArg(900),
	} {
		_, err := TakeBody(arg)
		var r *Refusal
		if !errors.As(err, &r) || r.Code != ExitCannotRun || !strings.Contains(r.Msg, "shell helper") {
			t.Errorf("%s: TakeBody(%q) = %v; want a refusal naming the shell helper", name, arg, err)
		}
	}
}

// FuzzParseBodyArg: the worker's reading of its last argument never
// panics and accepts only what BodyArg writes.
func FuzzParseBodyArg(f *testing.F) {
	for _, s := range []string{"/dev/fd/3", "/dev/fd/03", "/dev/fd/", "/dev/fd/2", "/dev/fd/99999999999", "print(1)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, arg string) {
		if fd, ok := ParseBodyArg(arg); ok && (fd < 3 || BodyArg(fd) != arg) {
			t.Fatalf("ParseBodyArg(%q) = %d, which BodyArg writes as %q", arg, fd, BodyArg(fd))
		}
	})
}
