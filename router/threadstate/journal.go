package threadstate

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"time"
	"unicode/utf8"
)

// A thread's journal is <thread>.replay.jsonl: one JSON object per line,
//
//	{"call_id":"call_1","carrier_sha256":"<hex>","carrier":"<carrier input>","item":"<original item>","at":1700000000000}
//
// "at" is when the carrier was sent (Unix milliseconds; absent in
// journals written before it was kept): a retention rebuilt from the
// history counts its hour from there.
// appended in the order the router emitted the carriers. An item that is
// not valid UTF-8 (which a JSON string cannot hold byte-exactly) is kept
// base64-encoded in "item_b64" instead of "item"; "carrier" is left out
// for a carrier that is not valid UTF-8 (its digest still restores it,
// and the call is then translated anew if it is sent again), and in
// journals written before it was kept. Reading the lines in order and
// keeping the newest entry per call_id and carrier within the bounds
// gives the thread's live entries; a last line without its newline is a
// write the router did not finish and is ignored.
const (
	journalSuffix = ".replay.jsonl"
	tempPrefix    = ".tmp-"
)

// Compaction slack: a journal is rewritten once it holds more than twice
// its live lines (or bytes) plus this much, so small threads whose calls
// repeat are not rewritten on every other put.
const (
	compactSlackLines = 64
	compactSlackBytes = 256 << 10
)

type journalLine struct {
	CallID  string `json:"call_id"`
	Carrier string `json:"carrier_sha256"`
	Sent    string `json:"carrier,omitempty"`
	Item    string `json:"item,omitempty"`
	ItemB64 []byte `json:"item_b64,omitempty"`
	At      int64  `json:"at,omitempty"`
}

// appendJournalLine appends e's journal line, newline included, to dst.
func appendJournalLine(dst []byte, e Entry) []byte {
	l := journalLine{CallID: e.callID, Carrier: e.carrier}
	if !e.At.IsZero() {
		l.At = e.At.UnixMilli()
	}
	if utf8.ValidString(e.sent) {
		l.Sent = e.sent
	}
	if utf8.ValidString(e.Item) {
		l.Item = e.Item
	} else {
		l.ItemB64 = []byte(e.Item)
	}
	b, _ := json.Marshal(l) // strings and bytes always encode
	return append(append(dst, b...), '\n')
}

// decodeJournalLine parses one line without its newline, or says why it
// fails its check.
func decodeJournalLine(b []byte) (Entry, string) {
	var l journalLine
	switch {
	case json.Unmarshal(b, &l) != nil:
		return Entry{}, "not a JSON object"
	case l.CallID == "":
		return Entry{}, "no call_id"
	case len(l.Carrier) != 64:
		return Entry{}, "no carrier digest"
	}
	if l.Sent != "" && carrierDigest(l.Sent) != l.Carrier {
		l.Sent = "" // not the carrier the digest names: restore by the digest only
	}
	item := l.Item
	if item == "" {
		item = string(l.ItemB64)
	}
	if item == "" {
		return Entry{}, "no original item"
	}
	e := Entry{callID: l.CallID, carrier: l.Carrier, sent: l.Sent, Item: item, line: len(b) + 1}
	if l.At > 0 {
		e.At = time.UnixMilli(l.At)
	}
	return e, ""
}

// decodeLine parses one journal line without its newline: a commit line
// (c set) or an entry line, or says why it fails its check.
func decodeLine(b []byte) (e Entry, c *committedChange, why string) {
	if bytes.HasPrefix(b, []byte(`{"commit":`)) {
		cc, why := decodeCommitLine(b)
		if why != "" {
			return Entry{}, nil, why
		}
		return Entry{}, &cc, ""
	}
	e, why = decodeJournalLine(b)
	return e, nil, why
}

func journalName(thread string) string { return thread + journalSuffix }

// load reads a thread's journal into t (locked, fresh). A missing journal
// gives an empty thread; broken lines are skipped and the journal is
// marked for compaction, which rewrites it without them.
func (s *Store) load(id string, t *threadState) {
	if s.root == nil {
		return
	}
	name := journalName(id)
	b, err := s.root.ReadFile(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return
	case permanentJournalError(err):
		s.journalFailed(id, t, err)
		return
	case err != nil:
		// Not compacted: that would replace what could not be read.
		s.log.Warn("replay journal unreadable; the thread starts without its entries", "file", name, "err", err)
		t.onDisk = true
		return
	}
	t.onDisk = true
	t.size = int64(len(b))
	for len(b) > 0 {
		t.lines++
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			t.torn = true
			break
		}
		line := b[:i]
		b = b[i+1:]
		e, c, why := decodeLine(line)
		switch {
		case why != "":
			t.loadErrs++
			s.log.Warn("replay journal line fails its check; ignoring it", "thread", id, "line", t.lines, "reason", why)
		case c != nil:
			t.addCommit(*c, s.now(), s.lim)
		default:
			t.add(e, s.lim)
		}
	}
	if t.torn {
		s.log.Info("replay journal ends in an unfinished line (the router stopped mid-write); ignoring it", "file", name)
	}
	t.compact = t.torn || t.loadErrs > 0 || t.needsCompaction()
}

// appendLocked writes one journal line with a single write(); t.mu is
// held. A failed or short write leaves the entry to the next compaction,
// which rewrites the journal from memory.
func (s *Store) appendLocked(id string, t *threadState, line []byte) error {
	if t.noJournal {
		return nil // said once, by journalFailed
	}
	if t.tail != nil {
		t.tail = append(t.tail, line...)
	}
	if t.f == nil {
		f, err := s.root.OpenFile(journalName(id), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			s.journalFailed(id, t, err)
			return fmt.Errorf("open the replay journal: %w", err)
		}
		if !t.onDisk {
			s.created.Store(true)
		}
		t.f, t.onDisk = f, true
	}
	buf := line
	if t.torn { // end the unfinished line first, so this one stays whole
		buf = append([]byte{'\n'}, line...)
	}
	n, err := t.f.Write(buf)
	t.size += int64(n)
	if n > 0 {
		t.dirty = true
		t.lines++
	}
	if err != nil {
		t.torn, t.compact = t.torn || n > 0, true
		return fmt.Errorf("append to the replay journal %s: %w", journalName(id), err)
	}
	t.torn = false
	return nil
}

// maxJournalFails is how many journal opens or compactions of a thread may
// fail in a row before the store stops trying (each retry rewrites and
// fsyncs the whole thread).
const maxJournalFails = 3

// journalFailed records a failed journal open or compaction; t.mu is held.
// The journal is retried by the next maintenance pass, unless the error
// can never go away (the name is too long for the file system) or it
// failed maxJournalFails times in a row: then the thread's entries stay in
// memory only (replay still works until the router restarts), said once.
func (s *Store) journalFailed(id string, t *threadState, err error) {
	t.fails++
	if !permanentJournalError(err) && t.fails < maxJournalFails {
		t.compact = true
		s.log.Error("cannot write a replay journal; will retry", "file", journalName(id), "err", err)
		return
	}
	t.noJournal, t.compact = true, false
	s.log.Error("giving up on a replay journal; this thread's replay entries stay in memory only and do not survive a restart",
		"file", journalName(id), "failures", t.fails, "err", err)
}

// permanentJournalError reports errors retrying cannot fix: a file name the
// file system cannot hold.
func permanentJournalError(err error) bool {
	return errors.Is(err, syscall.ENAMETOOLONG) || errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.EILSEQ)
}

// needsCompaction reports whether the journal holds much more than its
// live entries; t.mu is held.
func (t *threadState) needsCompaction() bool {
	return t.lines > 2*(len(t.entries)+len(t.commits))+compactSlackLines ||
		t.size > 2*int64(t.lineBytes)+compactSlackBytes
}

// compactThread rewrites a thread's journal to exactly its live entries:
// a temporary file, fsync, rename, all through the os.Root. The long part
// (writing and syncing the live lines) runs without the thread's lock;
// puts meanwhile go to the old journal as usual and are also kept in
// t.tail, which is appended to the new journal before the rename. Only the
// maintainer calls it.
func (s *Store) compactThread(id string, t *threadState) {
	t.mu.Lock()
	if t.closed || !t.compact {
		t.mu.Unlock()
		return
	}
	buf := make([]byte, 0, t.lineBytes)
	for _, e := range t.entries {
		buf = appendJournalLine(buf, e)
	}
	t.pruneCommits(s.now(), s.lim)
	for _, c := range t.commits {
		buf = appendCommitLine(buf, c.Committed)
	}
	lines := len(t.entries) + len(t.commits)
	t.tail = []byte{}
	t.mu.Unlock()

	tmp, err := s.writeTemp(buf)
	t.mu.Lock()
	defer t.mu.Unlock()
	tail := t.tail
	t.tail = nil
	if err != nil {
		s.journalFailed(id, t, err)
		return
	}
	if t.closed { // evicted meanwhile: its journal, as it is, stays the truth
		_ = s.root.Remove(tmp)
		return
	}
	if len(tail) > 0 {
		if err := s.appendTemp(tmp, tail); err != nil {
			_ = s.root.Remove(tmp)
			s.journalFailed(id, t, err)
			return
		}
	}
	if err := s.root.Rename(tmp, journalName(id)); err != nil {
		_ = s.root.Remove(tmp)
		s.journalFailed(id, t, err)
		return
	}
	t.fails = 0
	s.created.Store(true) // the directory changed: sync it
	if t.f != nil {
		_ = t.f.Close() // the replaced file: nothing more goes there
		t.f = nil
	}
	t.lines = lines + bytes.Count(tail, []byte{'\n'})
	t.size = int64(len(buf) + len(tail))
	t.torn, t.compact, t.dirty = false, false, len(tail) > 0
	if f, err := s.root.OpenFile(journalName(id), os.O_WRONLY|os.O_APPEND, 0o600); err == nil {
		t.f = f
	} // else the next put opens it
}

// writeTemp writes and fsyncs b in a new temporary file in the state
// directory and returns its name.
func (s *Store) writeTemp(b []byte) (string, error) {
	tmp := tempPrefix + rand.Text()
	f, err := s.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	_, werr := f.Write(b)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		_ = s.root.Remove(tmp)
		return "", werr
	}
	return tmp, nil
}

// appendTemp appends b to the temporary file tmp (no fsync: those lines
// are as durable as any fresh journal line until the next sync).
func (s *Store) appendTemp(tmp string, b []byte) error {
	f, err := s.root.OpenFile(tmp, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, werr := f.Write(b)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}
