package snapshot

import (
	"strings"
	"testing"
)

func TestManifestRoundTrip(t *testing.T) {
	m := Manifest{Exe: "/usr/bin/hpatch-router", SHA256: strings.Repeat("a", 64), Dev: 1, Ino: 2, Size: 3, MtimeNs: 4, Owner: 0, CtimeNs: 7, PID: 5, Start: 6}
	got, err := Parse(m.Encode())
	if err != nil || got != m {
		t.Fatalf("got %+v, %v", got, err)
	}
	for _, bad := range []string{"", "hpatch-router-snapshot 1\n", "other\nexe /x\n", string(m.Encode()) + "extra 1\n", strings.Replace(string(m.Encode()), "pid 5", "pid x", 1),
		strings.Replace(string(m.Encode()), "exe /usr", "exe usr", 1), strings.Replace(string(m.Encode()), "owner 0\n", "", 1), strings.Replace(string(m.Encode()), "ctime_ns 7\n", "", 1),
		strings.Replace(string(m.Encode()), "snapshot 2", "snapshot 1", 1), strings.Replace(string(m.Encode()), "owner 0", "owner x", 1)} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

// TestManifestVersion1: a manifest an older router left (no owner) still
// parses, for reclaim, with Owner -1, which no ownership check takes for
// root.
func TestManifestVersion1(t *testing.T) {
	m := Manifest{Exe: "/usr/bin/hpatch-router", SHA256: "ab", Dev: 1, Ino: 2, Size: 3, MtimeNs: 4, Owner: 0, PID: 5, Start: 6}
	v1 := strings.NewReplacer("owner 0\n", "", "ctime_ns 0\n", "", "snapshot 2", "snapshot 1").Replace(string(m.Encode()))
	got, err := Parse([]byte(v1))
	m.Owner = -1
	if err != nil || got != m {
		t.Fatalf("got %+v, %v", got, err)
	}
}

func TestNames(t *testing.T) {
	d := Digest([]byte("x"))
	if len(d) != 32 || DigestOf(DirName(d)) != d || DigestOfLink(LinkTarget(d)) != d {
		t.Fatal("digest names do not round-trip")
	}
	for _, bad := range []string{"/abs/" + DirName(d) + "/launcher", "../" + DirName(d) + "/other", "../" + DirName(d[:31]) + "/launcher",
		"../" + DirName(strings.ToUpper(d)) + "/launcher", "../../" + DirName(d) + "/launcher", "/bin/bash"} {
		if DigestOfLink(bad) != "" {
			t.Errorf("accepted link target %q", bad)
		}
	}
}
