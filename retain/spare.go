package retain

import (
	"errors"
	"io/fs"
	"os"
)

// spareFile is an unnamed file in a scripts directory, and that directory.
type spareFile struct {
	file *os.File
	dir  *os.File
}

func (sp *spareFile) close() {
	sp.file.Close()
	sp.dir.Close()
}

// createLocked creates artifact id with data in ts's scripts directory,
// through ts's spare when it has one (spare_linux.go), and arms the next
// spare. It returns the new file's status. s.mu must be held.
func (s *Store) createLocked(ts *threadStore, id string, data []byte) (fs.FileInfo, error) {
	sp := ts.spare
	if sp == nil {
		defer s.armSpareLocked(ts, nil)
		return createExclusive(ts.scripts, id, data)
	}
	ts.spare = nil
	defer s.armSpareLocked(ts, sp.dir)
	err := linkSpare(sp, id, data)
	if err == nil {
		return ts.scripts.Lstat(id)
	}
	if !errors.Is(err, errNoSpareLink) {
		return nil, err
	}
	return createExclusive(ts.scripts, id, data)
}

// armSpareLocked starts allocating ts's next spare in dir (ts's scripts
// directory, opened anew when nil) unless ts has one, one is being made,
// spares do not work here, or ts was not open when this operation began:
// a thread that keeps falling out of the open set (more threads in use
// than maxOpenThreads) would close its spare unused, so each retain would
// allocate two files instead of one. It owns dir. s.mu must be held.
func (s *Store) armSpareLocked(ts *threadStore, dir *os.File) {
	if !s.spares || ts.spare != nil || ts.spareBusy || !ts.isOpen() || !ts.wasOpen {
		if dir != nil {
			dir.Close()
		}
		return
	}
	if dir == nil {
		var err error
		if dir, err = ts.scripts.Open("."); err != nil {
			return
		}
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
