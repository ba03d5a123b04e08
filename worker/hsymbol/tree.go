//go:build linux

package hsymbol

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// A server reads the workspace's files when it starts and is not told
// when one changes on disk (hsymbol does not watch files for it), so a
// session is reused only while the files it could have read are as they
// were. What a server reads is its sources (server.sources) under the
// workspace root, outside the directories every one of them skips.

// maxTreeEntries bounds the walk of one workspace (files and directories
// visited). A larger workspace cannot be checked cheaply on every call:
// its session serves one call, as before sessions were shared.
const maxTreeEntries = 50_000

// tree is the state of a workspace's sources: a digest of each one's
// path, size, modification and change times and inode. checked is false
// when the workspace was too large to walk.
type tree struct {
	sum     [sha256.Size]byte
	checked bool
}

// snapshotTree walks root for srv's sources. It fails only when ctx ends.
func snapshotTree(ctx context.Context, root string, srv server) (tree, error) {
	h := sha256.New()
	visited := 0
	var rec [40]byte
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: the server cannot read it either
		}
		if visited++; visited > maxTreeEntries {
			return fs.SkipAll
		}
		if d.IsDir() {
			if path != root && skippedDir(d.Name()) {
				return filepath.SkipDir
			}
			return ctx.Err()
		}
		if !srv.isSource(d.Name()) {
			return nil
		}
		fi, err := os.Stat(path) // a symlinked source counts with its target
		if err != nil {
			return nil
		}
		st, _ := fi.Sys().(*syscall.Stat_t)
		binary.LittleEndian.PutUint64(rec[0:], uint64(fi.Size()))
		binary.LittleEndian.PutUint64(rec[8:], uint64(fi.ModTime().UnixNano()))
		if st != nil {
			binary.LittleEndian.PutUint64(rec[16:], uint64(st.Ctim.Nano()))
			binary.LittleEndian.PutUint64(rec[24:], st.Ino)
			binary.LittleEndian.PutUint64(rec[32:], st.Dev)
		}
		h.Write([]byte(path))
		h.Write([]byte{0})
		h.Write(rec[:])
		return nil
	})
	if err != nil {
		return tree{}, err
	}
	t := tree{checked: visited <= maxTreeEntries}
	h.Sum(t.sum[:0])
	return t, nil
}

// skippedDir: directories no server reads sources from (gopls skips names
// starting with "." or "_"; pyright and TypeScript skip hidden ones,
// node_modules and __pycache__ by default).
func skippedDir(name string) bool {
	return strings.HasPrefix(name, ".") || name == "node_modules" || name == "__pycache__"
}

// isSource reports whether a file named name is one srv reads as source
// or configuration.
func (s server) isSource(name string) bool {
	for _, suffix := range s.sources {
		if strings.HasSuffix(name, suffix) {
			return true
		}
	}
	return false
}
