package retain

import (
	"errors"
	"io/fs"
	"os"
)

// createLocked creates artifact id with data in ts's scripts directory,
// through ts's spare when it has one (spare_linux.go), and arms the next
// spare. It returns the new file's status. s.mu must be held.
func (s *Store) createLocked(ts *threadStore, id string, data []byte) (fs.FileInfo, error) {
	defer s.armSpareLocked(ts)
	if sp := ts.spare; sp != nil {
		ts.spare = nil
		err := linkSpare(sp, id, data)
		if err == nil {
			return ts.scripts.Lstat(id)
		}
		if !errors.Is(err, errNoSpareLink) {
			return nil, err
		}
	}
	return createExclusive(ts.scripts, id, data)
}

// armSpareLocked starts allocating ts's next spare unless it has one, one
// is being made, or spares do not work here. s.mu must be held.
func (s *Store) armSpareLocked(ts *threadStore) {
	if !s.spares || ts.spare != nil || ts.spareBusy || !ts.isOpen() {
		return
	}
	dir, err := ts.scripts.Open(".")
	if err != nil {
		return
	}
	ts.spareBusy = true
	s.spareWork.Add(1)
	go s.makeSpare(ts, dir)
}

// makeSpare allocates a spare in dir (ts's scripts directory, which it now
// owns) and gives it to ts if ts is still open for the store.
func (s *Store) makeSpare(ts *threadStore, dir *os.File) {
	defer s.spareWork.Done()
	sp, err := openSpare(dir)
	if err != nil {
		dir.Close()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ts.spareBusy = false
	if err != nil {
		if spareUnsupported(err) {
			s.spares = false
		}
		s.log.Debug("no spare script file", "thread", ts.thread, "err", err)
		return
	}
	if s.closed || !ts.isOpen() || ts.spare != nil || s.threads[ts.thread] != ts {
		sp.close()
		return
	}
	ts.spare = sp
}
