package access

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"

	"hpatch-router/internal/testenv"
	"hpatch-router/internal/testuser"
)

// TestServerOwner: the user whose server accepted a connection this
// process dialled is the listener's owner, once the server accepted it: this user for our own
// listener, the other user for one another uid opened first on an
// address (a router's port squatted while the router is down).
func TestServerOwner(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := l.Accept()
		if err == nil {
			accepted <- c
		}
		close(accepted)
	}()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if sc := <-accepted; sc != nil {
		defer sc.Close()
	}
	if uid, known, err := ServerOwner(c); err != nil || !known || uid != os.Geteuid() {
		t.Fatalf("own listener: uid %d, known %v, %v; want %d", uid, known, err, os.Geteuid())
	}

	other := testuser.New(t, "/usr/sbin/nologin")
	// A python3 the other user can run (a developer's may sit in their
	// home, as pyenv's shim does).
	python3 := ""
	for _, p := range []string{"/usr/bin/python3", "/usr/local/bin/python3"} {
		if _, err := os.Stat(p); err == nil && python3 == "" {
			python3 = p
		}
	}
	if python3 == "" {
		testenv.Missing(t, "python3", "python3 in /usr/bin or /usr/local/bin, for another user's listener")
	}
	cmd := exec.Command(python3, "-c", "import socket, sys\ns = socket.socket()\ns.bind(('127.0.0.1', 0))\ns.listen()\n"+
		"print(s.getsockname()[1], flush=True)\nc, _ = s.accept()\nprint('accepted', flush=True)\nsys.stdin.read()\n")
	cmd.SysProcAttr = other.SysProcAttr()
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	lines := bufio.NewReader(stdout)
	port, err := lines.ReadString('\n')
	if err != nil {
		t.Fatalf("the other user's listener: %v", err)
	}
	theirs, err := net.Dial("tcp", "127.0.0.1:"+strings.TrimSpace(port))
	if err != nil {
		t.Fatal(err)
	}
	defer theirs.Close()
	if _, err := lines.ReadString('\n'); err != nil {
		t.Fatalf("the other user's listener did not accept: %v", err)
	}
	if uid, known, err := ServerOwner(theirs); err != nil || !known || uid != other.UID {
		t.Fatalf("another user's listener: uid %d, known %v, %v; want %d", uid, known, err, other.UID)
	}
}
