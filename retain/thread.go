package retain

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"hpatch-router/ident"
	"hpatch-router/scriptref"
)

// threadLocked returns the storage of thread, opened: its dir and scripts
// Roots hold two descriptors until releaseLocked closes them or keeps them
// open for the next operation (keepOpenLocked bounds how many stay open). A
// thread the store remembers is reopened by name, or its open Roots
// rechecked by name, and must still lead to the directories it recorded;
// storage that was moved or replaced is dropped (its scripts are no longer
// reachable by the worker) and opened from the path anew, with the full
// checks. With create, a missing scripts directory is created (0700)
// inside the thread directory; the thread directory itself is never
// created here. s.mu must be held.
func (s *Store) threadLocked(thread string, create bool) (*threadStore, error) {
	if s.closed {
		return nil, ErrClosed
	}
	if err := checkThread(thread); err != nil {
		return nil, err
	}
	s.followRootLocked()
	if ts := s.threads[thread]; ts != nil {
		err := s.openLocked(ts)
		if err == nil {
			return ts, nil
		}
		s.log.Warn("thread storage changed; reopening it", "thread", thread, "err", err)
		for _, a := range ts.owned {
			a.timer.Stop()
		}
		delete(s.threads, thread)
	}
	ts, err := openThread(s.runtime, thread, create, s.uid)
	if err != nil {
		return nil, err
	}
	s.threads[thread] = ts
	return ts, nil
}

// openThread opens the thread directory and its scripts directory.
func openThread(runtime *os.Root, thread string, create bool, uid int) (*threadStore, error) {
	name := ident.ThreadDirName(thread)
	dir, dirInfo, err := openSafeDir(runtime, name, "thread directory "+name, uid)
	if err != nil {
		return nil, err
	}
	ts := &threadStore{thread: thread, dir: dir, dirInfo: dirInfo, owned: map[string]*artifact{}}
	scripts, info, err := openSafeDir(dir, ident.ScriptsDirName, "scripts directory", uid)
	if create && errors.Is(err, fs.ErrNotExist) {
		if mkErr := dir.Mkdir(ident.ScriptsDirName, 0o700); mkErr != nil && !errors.Is(mkErr, fs.ErrExist) {
			dir.Close()
			return nil, fmt.Errorf("create scripts directory: %w", mkErr)
		} else if mkErr == nil {
			ts.createdScripts = true
		}
		scripts, info, err = openSafeDir(dir, ident.ScriptsDirName, "scripts directory", uid)
	}
	if err != nil {
		dir.Close()
		if errors.Is(err, fs.ErrNotExist) {
			return nil, missing("no retained scripts in thread %s (%v)", thread, err)
		}
		return nil, err
	}
	ts.scripts, ts.scriptsInfo = scripts, info
	return ts, nil
}

// reopen opens ts's directories by name again, with the checks of
// openSafeDir, and reports an error unless they are the directories ts
// recorded when the store first opened them.
func (ts *threadStore) reopen(runtime *os.Root, uid int) error {
	name := ident.ThreadDirName(ts.thread)
	dir, dirInfo, err := openSafeDir(runtime, name, "thread directory "+name, uid)
	if err != nil {
		return err
	}
	if err := stillOpened(dirInfo, ts.dirInfo, "thread directory "+name); err != nil {
		dir.Close()
		return err
	}
	scripts, info, err := openSafeDir(dir, ident.ScriptsDirName, "scripts directory", uid)
	if err == nil {
		if err = stillOpened(info, ts.scriptsInfo, "the scripts directory"); err != nil {
			scripts.Close()
		}
	}
	if err != nil {
		dir.Close()
		return err
	}
	ts.dir, ts.scripts = dir, scripts
	return nil
}

// recheck reports an error unless the names of ts's open directories
// still lead to them and they still pass checkDir: the checks reopen
// makes, without opening anything (two lstats).
func (ts *threadStore) recheck(runtime *os.Root, uid int) error {
	name := ident.ThreadDirName(ts.thread)
	fi, err := lstatSafeDir(runtime, name, "thread directory "+name, uid)
	if err != nil {
		return err
	}
	if err := stillOpened(fi, ts.dirInfo, "thread directory "+name); err != nil {
		return err
	}
	fi, err = lstatSafeDir(ts.dir, ident.ScriptsDirName, "scripts directory", uid)
	if err != nil {
		return err
	}
	return stillOpened(fi, ts.scriptsInfo, "the scripts directory")
}

// stillOpened reports an error unless fi is the directory what names that
// the store opened first (opened): reopen and recheck refuse storage that
// was moved or replaced since.
func stillOpened(fi, opened fs.FileInfo, what string) error {
	if !os.SameFile(fi, opened) {
		return fmt.Errorf("%s is no longer the directory the store opened", what)
	}
	return nil
}

// removeOwned removes artifact id through the scripts Root if the name
// still holds the file this Store wrote (same file, same content);
// anything else is left alone.
func (ts *threadStore) removeOwned(id string, a *artifact) error {
	fi, err := ts.scripts.Lstat(id)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !os.SameFile(fi, a.file) {
		return fmt.Errorf("%s is no longer the file the store wrote; leaving it", scriptref.FormatRef(id))
	}
	data, err := ReadScript(ts.scripts, id)
	if err != nil {
		return err
	}
	if sha256.Sum256(data) != a.sum {
		return fmt.Errorf("%s was changed by someone else; leaving it", scriptref.FormatRef(id))
	}
	return ts.scripts.Remove(id)
}

// releaseLocked ends an operation on ts: storage the store remembers
// (owned artifacts, or scripts/ it created) stays open for the next
// operation (keepOpenLocked); other storage is closed and forgotten.
// s.mu must be held.
func (s *Store) releaseLocked(ts *threadStore) {
	current := s.threads[ts.thread] == ts
	if current && (len(ts.owned) > 0 || ts.createdScripts) {
		s.keepOpenLocked(ts)
		return
	}
	s.closeLocked(ts)
	if current {
		delete(s.threads, ts.thread)
	}
}

// close closes the directories opened by openThread or reopen.
func (ts *threadStore) close() {
	if ts.scripts != nil {
		ts.scripts.Close()
	}
	if ts.dir != nil {
		ts.dir.Close()
	}
	ts.dir, ts.scripts = nil, nil
}

// isOpen reports whether ts holds its directories open.
func (ts *threadStore) isOpen() bool { return ts.dir != nil }
