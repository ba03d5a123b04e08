package hread

import (
	"sync/atomic"

	"hpatch-router/retain"
)

// Hashing a row (SHA-256, one block for most lines) is over half of
// hread's work, so in a large window a second goroutine hashes the rows of
// its later part (ahead) while the printer hashes and prints the earlier
// part; the printer then prints the later rows with their hashes ready.
// Nothing else changes: rows are found, numbered, bounded and printed by
// the printer alone, in order, and a row ahead did not hash (past its
// stretch, or the window longer than estimated) is hashed by the printer.

// split says when and where the printer hands rows to a second goroutine.
type split struct {
	after int // window rows the printer prints first: their sizes give the estimate
	least int // fewest estimated input bytes left in the window worth a goroutine
	rows  int // most rows the goroutine hashes (2 bytes each); 0: never split
}

// defaultSplit: 256 rows tell the window's bytes per row; below 32 KiB
// (a few hundred microseconds of hashing) waking a second thread does not
// pay; 8192 rows keep the hashes held at 16 KiB.
func defaultSplit() split { return split{after: 256, least: 32 << 10, rows: 8192} }

// The printer hashes and prints a short row in about 80 ns and the
// goroutine hashes one in about 60 (SHA-NI), but it starts some tens of
// microseconds late (a thread to wake): with half of what is left each,
// the goroutine is usually done when the printer reaches its rows.
const printerShare, shares = 1, 2

// ahead is the second goroutine's part: the hashes of consecutive rows
// from offset from of the file, sums[:ready] ready to take. The printer
// never waits for it: when it reaches a row the goroutine has not hashed
// yet, it stops the goroutine and hashes the rest itself, so a busy
// second core costs the printer nothing but the goroutine's start.
type ahead struct {
	from  int
	sums  []retain.RowSum
	ready atomic.Int64 // sums hashed; published every publishEvery rows
	stop  atomic.Bool
	done  chan struct{}

	used      int  // sums the printer took
	seen      int  // ready as the printer last loaded it
	exhausted bool // the printer caught up and hashes the rest itself
}

// publishEvery is how many rows the goroutine hashes between publishing
// its progress: one atomic store a batch, not one a row.
const publishEvery = 32

// startAhead starts hashing rows in data[at:end), from the first row that
// starts at or after at; nil when none does.
func startAhead(data []byte, at, end, rows int) *ahead {
	from, ok := rowStart(data, at, end)
	if !ok {
		return nil
	}
	a := &ahead{from: from, sums: make([]retain.RowSum, min(rows, end-from)), done: make(chan struct{})}
	go a.hash(data[from:], end-from)
	return a
}

// hash hashes the rows of rest that start before end, at most len(a.sums).
func (a *ahead) hash(rest []byte, end int) {
	defer close(a.done)
	h := retain.NewRowHasher()
	off, n := 0, 0
	defer func() { a.ready.Store(int64(n)) }()
	for r := range retain.AllRows(rest) {
		if off >= end || n == len(a.sums) || a.stop.Load() {
			return
		}
		a.sums[n] = h.Sum(r.Text)
		n++
		if n%publishEvery == 0 {
			a.ready.Store(int64(n))
		}
		off += len(r.Text) + len(r.Term)
	}
}

// take returns the hash of the next row from a.from on; false from the
// first row the goroutine had not hashed when the printer got there. The
// printer calls it for consecutive rows, the first one starting at a.from.
func (a *ahead) take() (retain.RowSum, bool) {
	if a.exhausted {
		return retain.RowSum{}, false
	}
	if a.used == a.seen {
		a.seen = int(a.ready.Load())
		if a.used == a.seen {
			a.exhausted = true
			a.stop.Store(true)
			return retain.RowSum{}, false
		}
	}
	a.used++
	return a.sums[a.used-1], true
}

// end stops the goroutine and waits for it, so none outlives the command.
func (a *ahead) end() {
	a.stop.Store(true)
	<-a.done
}

// rowStart returns the first offset in [at, end) where a row starts: right
// after LF, CRLF or a lone CR, never between the CR and LF of a CRLF.
func rowStart(data []byte, at, end int) (int, bool) {
	for i := max(at, 1); i < min(end, len(data)); i++ {
		if data[i-1] == '\n' || data[i-1] == '\r' && data[i] != '\n' {
			return i, true
		}
	}
	return 0, false
}
