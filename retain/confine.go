package retain

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"unicode/utf8"

	"hpatch-router/ident"
	"hpatch-router/regfile"
	"hpatch-router/scriptref"
)

// MaxScriptBytes bounds a retained script. A rerun must still fit one exec
// argv string (128 KiB), so this leaves room without reading huge files.
const MaxScriptBytes = 1 << 20

// checkDir reports why fi cannot hold private storage: it must be a real
// directory (not a symlink), owned by uid (the current user) and not
// writable by group or others.
func checkDir(fi fs.FileInfo, what string, uid int) error {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s is a symlink; refusing to follow it", what)
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory", what)
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("%s is writable by group or others (mode %v); it must be 0700", what, fi.Mode().Perm())
	}
	if err := checkOwner(fi, uid); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// openSafeDir opens the directory name below parent as a Root after
// checking it with checkDir, and verifies that the opened directory is the
// one that was checked (a swap between the two steps is refused). It
// returns the Root and the identity of the directory.
func openSafeDir(parent *os.Root, name, what string, uid int) (*os.Root, fs.FileInfo, error) {
	fi, err := lstatSafeDir(parent, name, what, uid)
	if err != nil {
		return nil, nil, err
	}
	r, err := parent.OpenRoot(name)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", what, err)
	}
	got, err := r.Stat(".")
	if err == nil && !os.SameFile(fi, got) {
		err = errors.New("it was replaced while being opened")
	}
	if err != nil {
		r.Close()
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	return r, got, nil
}

// lstatSafeDir returns the status of name below parent, without
// following a link, after checking it with checkDir.
func lstatSafeDir(parent *os.Root, name, what string, uid int) (fs.FileInfo, error) {
	fi, err := parent.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, missing("%s is missing", what)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if err := checkDir(fi, what, uid); err != nil {
		return nil, err
	}
	return fi, nil
}

// OpenScripts opens the retained-script directory of thread below the
// runtime root directory for reading (hread @shell/<id>). It creates
// nothing and applies the same checks as the store: a valid thread id, and
// thread and scripts directories that are real directories owned by the
// current user and not writable by others. Read with ReadScript or ReadRef.
func OpenScripts(runtimeRoot, thread string) (*os.Root, error) {
	if err := checkThread(thread); err != nil {
		return nil, err
	}
	rt, err := os.OpenRoot(runtimeRoot)
	if err != nil {
		return nil, fmt.Errorf("open runtime root: %w", err)
	}
	defer rt.Close()
	return OpenScriptsIn(rt, thread)
}

// OpenScriptsIn is OpenScripts for a runtime root that is already open.
func OpenScriptsIn(runtime *os.Root, thread string) (*os.Root, error) {
	if err := checkThread(thread); err != nil {
		return nil, err
	}
	name := ident.ThreadDirName(thread)
	uid := os.Getuid()
	dir, _, err := openSafeDir(runtime, name, "thread directory "+name, uid)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	scripts, _, err := openSafeDir(dir, ident.ScriptsDirName, "scripts directory", uid)
	if err != nil {
		return nil, err
	}
	return scripts, nil
}

// ReadRef parses ref ("@shell/<id>") and reads it with ReadScript.
func ReadRef(scripts *os.Root, ref string) ([]byte, error) {
	id, err := scriptref.ParseRef(ref)
	if err != nil {
		return nil, err
	}
	return ReadScript(scripts, id)
}

// ReadScript reads artifact id from an open scripts directory. It accepts
// only a valid, non-reserved id naming a regular file with a single link
// (no symlink, directory, device or hard link from elsewhere), at most
// MaxScriptBytes long and valid UTF-8.
func ReadScript(scripts *os.Root, id string) ([]byte, error) {
	if err := ident.Artifact(id); err != nil {
		return nil, err
	}
	ref := scriptref.FormatRef(id)
	f, fi, err := regfile.Open(scriptFiles{scripts, ref}, id)
	var notRegular *regfile.NotRegularError
	switch {
	case errors.As(err, &notRegular):
		return nil, notRegularScript(notRegular.Mode, ref)
	case errors.Is(err, regfile.ErrChanged):
		return nil, fmt.Errorf("%s was replaced while being opened; retry", ref)
	case errors.As(err, new(namedError)):
		return nil, errors.Unwrap(err)
	case err != nil: // the open file's status
		return nil, fmt.Errorf("%s: %w", ref, Pathless(err))
	}
	defer f.Close()
	if n := linkCount(fi); n != 1 {
		return nil, fmt.Errorf("%s has %d hard links; references select private files only", ref, n)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxScriptBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", ref, Pathless(err))
	}
	if len(data) > MaxScriptBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes", ref, MaxScriptBytes)
	}
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("%s is not valid UTF-8", ref)
	}
	return data, nil
}

// notExist is an error message that matches fs.ErrNotExist.
type notExist struct{ msg string }

func (e notExist) Error() string        { return e.msg }
func (e notExist) Is(target error) bool { return target == fs.ErrNotExist }

func missing(format string, args ...any) error { return notExist{fmt.Sprintf(format, args...)} }

// scriptMissing is the error for a reference to a script the thread does
// not hold. The model saw it retained, so the message says why it can be
// gone and what to do.
func scriptMissing(ref string) error {
	return missing("%s does not exist in this thread: retained scripts last one hour and are removed when the router restarts; send the script again", ref)
}

// threadMissing maps a thread without storage (no directory for it, or no
// scripts/ in it: the router has not prepared it since it started) to
// scriptMissing for ref, the first script the operation needs; any other
// error is returned as it is.
func threadMissing(err error, ref string) error {
	if errors.Is(err, fs.ErrNotExist) {
		return scriptMissing(ref)
	}
	return err
}

// notRegularScript reports why a file of mode cannot be read as a
// retained script.
func notRegularScript(mode fs.FileMode, ref string) error {
	if mode&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symlink; references select regular files only", ref)
	}
	return fmt.Errorf("%s is not a regular file", ref)
}

// scriptFiles opens retained scripts for regfile.Open: the look before
// the open does not follow a symlink, and its errors name the script as
// the model wrote it (ref), never the store's path.
type scriptFiles struct {
	scripts *os.Root
	ref     string
}

func (d scriptFiles) Stat(id string) (fs.FileInfo, error) {
	fi, err := d.scripts.Lstat(id)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, namedError{scriptMissing(d.ref)}
	case err != nil:
		return nil, namedError{fmt.Errorf("%s: %w", d.ref, Pathless(err))}
	}
	return fi, nil
}

func (d scriptFiles) OpenFile(id string, flag int, perm fs.FileMode) (*os.File, error) {
	f, err := d.scripts.OpenFile(id, flag, perm)
	if err != nil {
		return nil, namedError{fmt.Errorf("open %s: %w", d.ref, Pathless(err))}
	}
	return f, nil
}

// namedError carries an error of scriptFiles, which already names the
// script, through regfile.Open to ReadScript.
type namedError struct{ err error }

func (e namedError) Error() string { return e.err.Error() }
func (e namedError) Unwrap() error { return e.err }

// writeTemp writes data to a new temporary file (0600) in root and returns
// its name. The caller links or renames it into place, or removes it, and
// names the script in an error, which is Pathless: the temporary name and
// the file's absolute path are the store's, not the model's.
//
// The file is opened non-blocking, which a regular file ignores: an
// *os.File opened blocking is switched to non-blocking, offered to the
// poller (which refuses a regular file) and switched back: four fcntl
// calls of the fifteen system calls a retain made.
func writeTemp(root *os.Root, data []byte) (string, error) {
	var rnd [12]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return "", err
	}
	name := ident.TempPrefix + hex.EncodeToString(rnd[:])
	if err := regfile.WriteNew(root, name, createTempFlags, 0o600, data); err != nil {
		return "", Pathless(err)
	}
	return name, nil
}

// createExclusive atomically creates name in root with data: the content
// is complete before the name appears, and an existing name is never
// replaced (a hard link fails with EEXIST). It returns the new file's
// identity.
func createExclusive(root *os.Root, name string, data []byte) (fs.FileInfo, error) {
	tmp, err := writeTemp(root, data)
	if err != nil {
		return nil, err
	}
	if err := regfile.LinkNew(root, tmp, name); err != nil {
		root.Remove(tmp)
		return nil, Pathless(err)
	}
	return root.Lstat(name)
}

// Pathless is err without the names an *fs.PathError or *os.LinkError adds
// to its cause (the one rule for it; package workspace uses it too): an
// *os.File opened through a Root reports the absolute path of the runtime
// directory (write /run/user/…/hpatch-<thread>/scripts/…:
// no space left on device), and a Root's own calls the store's temporary
// names. Callers name the script as `@shell/<id>`, the only name the model
// knows, and the cause (an errno) still answers errors.Is.
func Pathless(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
