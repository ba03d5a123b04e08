package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"
	"unicode/utf8"

	"hpatch-router/regfile"
	"hpatch-router/retain"
)

// errOutside is a path that leads out of its root through a symlink.
var errOutside = errors.New("leads out of the workspace root through a symlink")

// roots opens each workspace root once per resolution or write.
type roots map[string]*os.Root

func (rs roots) open(dir string) (*os.Root, error) {
	if r := rs[dir]; r != nil {
		return r, nil
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace root %s cannot be opened (%w)", clip(dir), retain.Pathless(err))
	}
	rs[dir] = r
	return r, nil
}

func (rs roots) close() {
	for _, r := range rs {
		r.Close()
	}
}

// lstat is Root.Lstat with an escape through a symlink reported as
// errOutside.
func lstat(r *os.Root, rel string) (fs.FileInfo, error) {
	fi, err := r.Lstat(rel)
	return fi, outside(err)
}

// outside maps os.Root's refusal of a name that leaves the root to
// errOutside. Root has no exported sentinel for it, and MkdirAll nests the
// refusal inside another *fs.PathError, so the text is what is compared.
func outside(err error) error {
	if err != nil && strings.HasSuffix(err.Error(), ": path escapes from parent") {
		return errOutside
	}
	return err
}

// fileState is what a read found: the bytes, and the file's identity
// and metadata as the open file showed them.
type fileState struct {
	data []byte
	meta fileMeta
	info fs.FileInfo
}

// readRegular reads rel under r whole: a regular file (not a symlink,
// directory or device), opened without blocking, at most MaxFileBytes,
// valid UTF-8. The file is checked before the open, so a device or FIFO is
// never opened, and again after it, so a swap in between is refused.
func readRegular(ctx context.Context, r *os.Root, rel string) (fileState, error) {
	f, fi, err := regfile.Open(inRoot{r}, rel)
	var notRegular *regfile.NotRegularError
	switch {
	case errors.As(err, &notRegular):
		return fileState{}, regular(notRegular.Mode)
	case errors.Is(err, regfile.ErrChanged):
		return fileState{}, errors.New("was replaced while being read; read it again")
	case err != nil:
		return fileState{}, err
	}
	defer f.Close()
	if fi.Size() > MaxFileBytes {
		return fileState{}, fmt.Errorf("is %d bytes; hpatch edits files of at most %d bytes", fi.Size(), MaxFileBytes)
	}
	if err := ctx.Err(); err != nil {
		return fileState{}, err
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	switch {
	case err != nil:
		return fileState{}, err
	case len(data) > MaxFileBytes:
		return fileState{}, fmt.Errorf("grew past %d bytes while being read", MaxFileBytes)
	case !utf8.Valid(data):
		return fileState{}, errors.New("is not UTF-8 text; hpatch edits UTF-8 text files only")
	}
	return fileState{data: data, meta: metaOf(fi), info: fi}, nil
}

// inRoot opens names under a workspace root for regfile.Open: the look
// before the open does not follow a symlink, and a name that leaves the
// root is errOutside.
type inRoot struct{ r *os.Root }

func (d inRoot) Stat(rel string) (fs.FileInfo, error) { return lstat(d.r, rel) }

func (d inRoot) OpenFile(rel string, flag int, perm fs.FileMode) (*os.File, error) {
	f, err := d.r.OpenFile(rel, flag, perm)
	return f, outside(err)
}

// regular names what a file of mode is when it is not a regular one.
func regular(mode fs.FileMode) error {
	switch t := mode.Type(); {
	case t&fs.ModeSymlink != 0:
		return errors.New("is a symlink; hpatch edits the file itself, so name the file the link points to")
	case t&fs.ModeDir != 0:
		return errors.New("is a directory, not a file")
	}
	return errors.New("is not a regular file")
}

// absent checks that rel does not exist under r and that its parent, if
// it exists, is a directory inside the root.
func absent(r *os.Root, rel string) error {
	_, err := lstat(r, rel)
	switch {
	case err == nil:
		return fs.ErrExist
	case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
		return err
	}
	for dir := path.Dir(rel); dir != "."; dir = path.Dir(dir) {
		fi, err := r.Stat(dir)
		switch {
		case errors.Is(outside(err), errOutside):
			return errOutside
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return err
		case !fi.IsDir():
			return fmt.Errorf("cannot be created: %s is not a directory", dir)
		}
		return nil
	}
	return nil
}
