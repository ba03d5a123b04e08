package inspect

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"time"

	"golang.org/x/sys/unix"

	"hpatch-router/jsonline"
)

// maxStack bounds the outline process's goroutine stacks. The parsers
// recurse about once per nesting level, and the pre-scan keeps levels in
// the hundreds: far below this; past it the process dies at once with a
// stack overflow instead of filling its memory limit first.
const maxStack = 64 << 20

// answer is what the outline process prints on stdout: the outline, or
// why there is none. The process holds its entries encoded (E is
// json.RawMessage: each is encoded once, to be measured); the parent reads
// them as wireEntry.
type answer[E any] struct {
	Kind          string `json:"kind"`
	ParseComplete bool   `json:"parse_complete"`
	Dropped       int    `json:"dropped"`
	Entries       []E    `json:"entries"`
	Error         string `json:"error,omitempty"`
}

// wireEntry is an Entry with the rows Entry's own JSON leaves out.
type wireEntry struct {
	Entry
	Start    int `json:"start"`
	End      int `json:"end"`
	NameLine int `json:"name_line"`
}

// ChildMain is the outline process (see Outline): it caps its own memory
// and CPU time first, then reads at most -input bytes from stdin, outlines
// them as the language named by its one argument and prints an answer.
// Entries whose encoding is longer than -output bytes, and entries past
// answerLimit bytes in all, are counted as dropped.
func ChildMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(ChildArg0, flag.ContinueOnError)
	fs.SetOutput(stderr)
	input := fs.Int64("input", 0, "most bytes read from stdin")
	output := fs.Int("output", 0, "longest entry kept, in bytes")
	memory := fs.Int64("memory", 0, "data segment limit in bytes (RLIMIT_DATA)")
	cpu := fs.Duration("time", 0, "wall-time limit the parent enforces; CPU time is capped at twice it plus 1 s")
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 {
		fmt.Fprintf(stderr, "%s: usage: %s -input N -output N -memory N -time D LANGUAGE (started by inspect_file)\n", ChildArg0, ChildArg0)
		return 2
	}
	if err := limitSelf(*memory, *cpu, stderr); err != nil {
		fmt.Fprintf(stderr, "%s: cannot set limits: %v\n", ChildArg0, err)
		return 1
	}
	data, err := io.ReadAll(io.LimitReader(stdin, *input+1))
	if err == nil && int64(len(data)) > *input {
		err = fmt.Errorf("more than %d bytes on stdin", *input)
	}
	var a answer[json.RawMessage]
	if err != nil {
		a.Error = err.Error()
	} else {
		a = outlineAnswer(fs.Arg(0), data, *output)
	}
	if _, err := stdout.Write(encodeAnswer(a)); err != nil {
		return 1
	}
	return 0
}

// exitOutOfMemory is the outline process's status when its memory
// watch ends it.
const exitOutOfMemory = 3

// dataHeadroom is how far past the watched memory the data segment may
// grow, for what the watch does not see or sees too late: the binary's own
// data (34 MB), an allocation burst between two checks (there is no C
// heap since the parsers are Go; tree-sitter's reached 150 MB). Hitting
// the cap instead of the watch can end the process less clearly (a
// SIGSEGV in the runtime).
const dataHeadroom = 512 << 20

// limitSelf caps this process. Memory: its resident memory is checked
// every 2 ms and the process ends with exitOutOfMemory past
// memory (the garbage collector works harder from half of it); its data
// segment (RLIMIT_DATA: heap, stacks, C allocations, the binary's own
// data) is capped at memory plus dataHeadroom. CPU time is capped at
// twice the wall time plus a second (the parent kills it at the wall
// deadline; this ends it if the parent is gone); stacks at maxStack.
func limitSelf(memory int64, wall time.Duration, stderr io.Writer) error {
	data := unix.Rlimit{Cur: uint64(memory + dataHeadroom), Max: uint64(memory + dataHeadroom)}
	if err := unix.Setrlimit(unix.RLIMIT_DATA, &data); err != nil {
		return err
	}
	secs := uint64(2*wall/time.Second) + 1
	cpu := unix.Rlimit{Cur: secs, Max: secs + 1}
	if err := unix.Setrlimit(unix.RLIMIT_CPU, &cpu); err != nil {
		return err
	}
	debug.SetMemoryLimit(memory / 2)
	debug.SetMaxStack(maxStack)
	go watchMemory(memory, stderr)
	return nil
}

// watchMemory ends the process once it has more than limit bytes
// resident, read from /proc/self/statm every 2 ms. The kernel's count and
// not runtime/metrics: that package's initialiser runs at every start of
// this executable, worker runs included (0.07 ms of each). Without procfs
// the data segment's cap (limitSelf) is the only bound.
func watchMemory(limit int64, stderr io.Writer) {
	statm, err := os.Open("/proc/self/statm")
	if err != nil {
		return
	}
	page := int64(os.Getpagesize())
	var buf [128]byte
	for range time.Tick(2 * time.Millisecond) {
		n, err := statm.ReadAt(buf[:], 0)
		if n == 0 && err != nil {
			return
		}
		if held := residentPages(buf[:n]) * page; held > limit {
			fmt.Fprintf(stderr, "%s: out of memory: %d bytes resident, over the %d-byte limit\n", ChildArg0, held, limit)
			os.Exit(exitOutOfMemory)
		}
	}
}

// residentPages is the second field of a statm line ("size resident
// shared …"), or 0 when the line does not have one.
func residentPages(statm []byte) int64 {
	_, rest, _ := bytes.Cut(statm, []byte{' '})
	var pages int64
	for _, c := range rest {
		if c < '0' || c > '9' {
			break
		}
		pages = pages*10 + int64(c-'0')
	}
	return pages
}

// outlineAnswer outlines data; a parser's panic is an answer's error.
func outlineAnswer(lang string, data []byte, maxEntry int) (a answer[json.RawMessage]) {
	defer func() {
		if p := recover(); p != nil {
			a = answer[json.RawMessage]{Error: fmt.Sprintf("the %s parser failed: %v", lang, p)}
		}
	}()
	res, err := outlineHere(lang, data)
	if err != nil {
		return answer[json.RawMessage]{Error: err.Error()}
	}
	a = answer[json.RawMessage]{Kind: res.Kind, ParseComplete: res.ParseComplete, Dropped: res.Dropped}
	size := 0
	for i, e := range res.Entries {
		w := marshal(wireEntry{e, e.Start, e.End, e.NameLine})
		if size+len(w) > answerLimit-4<<10 {
			a.Dropped += len(res.Entries) - i
			break
		}
		if len(w) > maxEntry {
			a.Dropped++
			continue
		}
		size += len(w) + 1
		a.Entries = append(a.Entries, w)
	}
	return a
}

// encodeAnswer is a's JSON, one line.
func encodeAnswer(a answer[json.RawMessage]) []byte {
	b, err := jsonline.Marshal(a)
	if err != nil {
		return []byte(`{"error":"cannot encode the outline"}` + "\n")
	}
	return append(b, '\n')
}
