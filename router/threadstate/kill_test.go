package threadstate

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"
)

const killHelperEnv = "HPATCH_ROUTER_REPLAY_KILL_DIR"

// TestReplayJournalKillHelper is the child process of
// TestReplayJournalSurvivesKill: it stores entries, says so and waits to be
// killed.
func TestReplayJournalKillHelper(t *testing.T) {
	dir := os.Getenv(killHelperEnv)
	if dir == "" {
		t.Skip("only run as the child of TestReplayJournalSurvivesKill")
	}
	s, err := Open(dir, DefaultLimits(), discard())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		if err := s.Put("thread-kill", fmt.Sprint("call_", i), fmt.Sprint("carrier ", i), []byte(fmt.Sprintf(`{"i":%d}`, i))); err != nil {
			t.Fatal(err)
		}
	}
	fmt.Println("stored")
	time.Sleep(time.Minute) // killed long before
}

// Entries a router stored survive its SIGKILL, with no Close and no fsync.
func TestReplayJournalSurvivesKill(t *testing.T) {
	if os.Getenv(killHelperEnv) != "" {
		t.Skip("child process")
	}
	dir := t.TempDir()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestReplayJournalKillHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), killHelperEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	stored := false
	for sc.Scan() {
		if sc.Text() == "stored" {
			stored = true
			break
		}
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if !stored {
		t.Fatal("the child did not store its entries")
	}
	s := openStore(t, dir, DefaultLimits())
	for i := range 50 {
		e, ok := s.get("thread-kill", fmt.Sprint("call_", i))
		if !ok || e.Item != fmt.Sprintf(`{"i":%d}`, i) || e.carrier != carrierDigest(fmt.Sprint("carrier ", i)) {
			t.Fatalf("call_%d after kill -9: %+v %v", i, e, ok)
		}
	}
}
