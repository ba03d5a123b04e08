package threadstate

import (
	"strings"
	"time"

	"hpatch-router/ident"
)

// RecentThreads lists the threads whose journal was last written after
// since: the journals are the router's only record of which threads it
// served. A memory-only store has none.
func (s *Store) RecentThreads(since time.Time) []string {
	if s.root == nil {
		return nil
	}
	d, err := s.root.Open(".")
	if err != nil {
		s.log.Warn("cannot list the replay journals", "err", err)
		return nil
	}
	defer d.Close()
	entries, err := d.ReadDir(-1)
	if err != nil {
		s.log.Warn("cannot list the replay journals", "err", err)
		return nil
	}
	var out []string
	for _, e := range entries {
		thread, ok := strings.CutSuffix(e.Name(), journalSuffix)
		if !ok || !e.Type().IsRegular() || ident.Thread(thread) != nil {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.ModTime().After(since) {
			out = append(out, thread)
		}
	}
	return out
}
