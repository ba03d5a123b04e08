package regfile

import (
	"io/fs"
	"os"
)

// WriteNew creates name in r, which must not exist (O_CREATE|O_EXCL, with
// flag added), writes data to it and closes it. On an error after the
// create, name is removed again, so the caller is left with a complete
// file or none. It is the first half of creating a file that never
// replaces one: write it whole under a temporary name, then LinkNew.
func WriteNew(r *os.Root, name string, flag int, perm fs.FileMode, data []byte) error {
	f, err := r.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|flag, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		r.Remove(name)
	}
	return err
}

// LinkNew gives the file at from the name name without replacing an
// existing entry: a hard link fails on any existing one (fs.ErrExist), so
// the content is complete before the name appears and nothing is
// overwritten. Once linked, from is removed. On an error from stays, for
// the caller to remove or to put in place another way.
func LinkNew(r *os.Root, from, name string) error {
	if err := r.Link(from, name); err != nil {
		return err
	}
	r.Remove(from)
	return nil
}
