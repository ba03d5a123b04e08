package privcmd

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestStartedChildDiesWithTheWorker: a process standing in for the worker
// starts `sleep` through Start and is then killed with SIGKILL, so it
// cannot clean up; the sleep must not survive it.
func TestStartedChildDiesWithTheWorker(t *testing.T) {
	if os.Getenv("PRIVCMD_START_CHILD") == "1" {
		cmd := exec.Command("sleep", "600")
		if err := Start(cmd); err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString(strconv.Itoa(cmd.Process.Pid) + "\n")
		select {}
	}
	worker := exec.Command(os.Args[0], "-test.run=^TestStartedChildDiesWithTheWorker$")
	worker.Env = append(os.Environ(), "PRIVCMD_START_CHILD=1")
	out, err := worker.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := worker.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = worker.Process.Kill()
		t.Fatalf("the stand-in worker did not report its child: %v", err)
	}
	pid, _ := strconv.Atoi(line[:len(line)-1])
	_ = worker.Process.Kill()
	_ = worker.Wait()
	// The kernel sends the death signal as the worker exits; the sleep is
	// then a zombie or gone. Poll for it (bounded only against a hang).
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if !alive(pid) {
			return
		}
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("sleep %d outlived the killed worker", pid)
		}
	}
}

// alive reports a process that exists and is not a zombie.
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	for i := len(stat) - 1; i > 0; i-- {
		if stat[i] == ')' && i+2 < len(stat) {
			return stat[i+2] != 'Z'
		}
	}
	return true
}
