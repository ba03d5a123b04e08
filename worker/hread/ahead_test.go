package hread

import (
	"testing"

	"hpatch-router/retain"
)

// rowStart finds where the next row starts: after LF, CRLF or a lone CR,
// never between the CR and the LF of a CRLF, and nowhere at or past end.
func TestRowStart(t *testing.T) {
	data := []byte("ab\r\ncd\ref\n\r\n\rg") // rows start at 4, 7, 10, 12 and 13
	cases := []struct {
		at, end, want int
		ok            bool
	}{
		{0, 14, 4, true},  // after "ab\r\n"
		{3, 14, 4, true},  // between the CR and LF of a CRLF: the row after it
		{4, 14, 4, true},  // a row start itself
		{5, 14, 7, true},  // after the lone CR
		{8, 14, 10, true}, // after "ef\n"
		{11, 14, 12, true},
		{12, 14, 12, true},
		{13, 14, 13, true}, // after the last lone CR: the unterminated "g"
		{5, 7, 0, false},   // end before the next start
		{14, 20, 0, false}, // at the end of the data
	}
	for _, c := range cases {
		got, ok := rowStart(data, c.at, c.end)
		if got != c.want || ok != c.ok {
			t.Errorf("rowStart(%d, %d) = %d, %v; want %d, %v", c.at, c.end, got, ok, c.want, c.ok)
		}
	}
}

// Wherever the second goroutine's stretch starts, the hashes the printer
// takes are those of its rows, in order: every offset of a file with
// every kind of terminator, and stretches of 1 to all rows.
func TestAheadHashesTheRowsThePrinterTakes(t *testing.T) {
	data := []byte("a\r\nbb\rccc\n\n\r\r\n\rdd\r\n\n\ree\r\rlast")
	for _, rows := range []int{1, 2, 5, 100} {
		for at := range len(data) {
			a := startAhead(data, at, len(data), rows)
			if a == nil {
				continue
			}
			<-a.done
			off, took := 0, 0
			for r := range retain.AllRows(data) {
				if off >= a.from {
					s, ok := a.take()
					if ok {
						took++
						var got [retain.HashLen]byte
						s.Put(&got)
						if want := retain.Hash(r.Text); string(got[:]) != want {
							t.Fatalf("stretch from %d (asked %d), %d rows: row %d %q took %s, want %s", a.from, at, rows, r.Num, r.Text, got, want)
						}
					}
				}
				off += len(r.Text) + len(r.Term)
			}
			if took == 0 || took > rows {
				t.Fatalf("stretch from %d, %d rows: the printer took %d hashes", a.from, rows, took)
			}
			a.end()
		}
	}
}

// Once the printer has caught up with the goroutine it hashes every later
// row itself, even if the goroutine publishes more afterwards: taking them
// then would give each row the hash of the row before it.
func TestAheadTakesNothingAfterCatchingUp(t *testing.T) {
	a := &ahead{sums: make([]retain.RowSum, 4), done: make(chan struct{})}
	close(a.done)
	a.sums[0], a.sums[1] = retain.RowSum{1}, retain.RowSum{2}
	a.ready.Store(1)
	if s, ok := a.take(); !ok || s != a.sums[0] {
		t.Fatalf("first take = %v, %v", s, ok)
	}
	if _, ok := a.take(); ok {
		t.Fatal("took a row the goroutine had not published")
	}
	if !a.stop.Load() {
		t.Fatal("catching up did not stop the goroutine")
	}
	a.ready.Store(2) // the goroutine's last publication, after the printer hashed row 2 itself
	if s, ok := a.take(); ok {
		t.Fatalf("took %v after catching up", s)
	}
}
