//go:build linux

package worker

import (
	"strings"
)

// pythonLoader is what Python runs with -c instead of the script path
// BodyPath. `python3 /dev/fd/3` would put the directory of the memfd's
// real path ("/") in sys.path[0], so `import mymodule` from the current
// directory fails; -c keeps sys.path[0] == "" (the current directory), as
// `python3 -c` and `python3 script.py` run from that directory do.
//
// The loader reads the exact body from fd 3 (the same anonymous
// descriptor; nothing is written), names it BodyPath in sys.argv[0],
// __file__ and the code object, and executes it in __main__'s namespace,
// leaving no name of its own there. Tracebacks name the body's lines
// (File "/dev/fd/3", line N): an uncaught exception is printed without the
// loader's frame, a syntax error without a traceback (exit 1, as Python
// does), and linecache is given the body when a traceback is printed, so a
// closed or reused fd 3 cannot show the wrong lines (the default hook
// reads the file by name, so the loader prints through the traceback
// module, which reads linecache). Standard input is not
// touched. It is written to run under Python 2.7 as well, for a `python`
// that is still Python 2.
const pythonLoader = `def _hpatch_load(g):
    import io, sys
    del g['_hpatch_load']
    f = io.open(3, 'rb', closefd=False)
    try:
        src = f.read()
    finally:
        f.close()
    name = '/dev/fd/3'
    sys.argv[0] = g['__file__'] = name
    g['__cached__'] = None
    def bare(v, tb):
        if hasattr(v, 'with_traceback'):
            v = v.with_traceback(tb)
        return v
    try:
        code = compile(src, name, 'exec', 0, True)
    except (SyntaxError, ValueError):
        v = sys.exc_info()[1]
        sys.excepthook(type(v), bare(v, None), None)
        sys.exit(1)
    hook = sys.excepthook
    def excepthook(t, v, tb):
        if tb is not None and tb.tb_frame.f_code.co_filename == '<string>':
            tb = tb.tb_next
        try:
            import linecache, tokenize
            text = src.decode(tokenize.detect_encoding(io.BytesIO(src).readline)[0])
            linecache.cache[name] = (len(text), None, text.splitlines(True), name)
        except Exception:
            pass
        v = bare(v, tb)
        if hook is sys.__excepthook__:
            import traceback
            traceback.print_exception(t, v, tb)
        else:
            hook(t, v, tb)
    sys.excepthook = excepthook
    return code
exec(_hpatch_load(globals()))
`

// pythonLike reports whether selector's basename is a CPython or PyPy 3
// interpreter the loader serves: python, python3, python3.N, pypy3,
// pypy3.N.
func pythonLike(selector string) bool {
	base := selector
	if i := strings.LastIndexByte(base, '/'); i >= 0 {
		base = base[i+1:]
	}
	if base == "python" {
		return true
	}
	for _, p := range []string{"python3", "pypy3"} {
		rest, ok := strings.CutPrefix(base, p)
		if !ok {
			continue
		}
		if rest == "" {
			return true
		}
		if minor, ok := strings.CutPrefix(rest, "."); ok && minor != "" && strings.Trim(minor, "0123456789") == "" {
			return true
		}
	}
	return false
}

// pythonOptionsOnly reports whether the middle fields are only Python
// interpreter options that apply the same with -c as with a script path.
// Anything that selects or reads the program differently (-c, -m, -, a
// script path or other positional word, -x which skips the script's first
// line, --) keeps the plain BodyPath invocation, so the fields mean what
// they always meant.
func pythonOptionsOnly(middle []string) bool {
	for i := 0; i < len(middle); i++ {
		f := middle[i]
		switch {
		case f == "--check-hash-based-pycs":
			if i++; i == len(middle) {
				return false // the value is missing: Python would take -c
			}
			continue
		case f == "--":
			return false
		case strings.HasPrefix(f, "--"):
			continue // --help, --version, --check-hash-based-pycs=MODE, …
		case len(f) < 2 || f[0] != '-':
			return false
		}
		for j := 1; j < len(f); j++ {
			switch f[j] {
			case 'c', 'm', 'x':
				return false
			case 'W', 'X', 'Q': // the rest of the field, or the next one, is the value
				if j == len(f)-1 {
					if i++; i == len(middle) {
						return false
					}
				}
				j = len(f)
			}
		}
	}
	return true
}

// interpreterArgs is the argv of a non-shell interpreter run: the selector,
// the middle fields, then how the interpreter finds the body on fd 3.
func interpreterArgs(selector string, middle []string) []string {
	args := append([]string{selector}, middle...)
	if pythonLike(selector) && pythonOptionsOnly(middle) {
		return append(args, "-c", pythonLoader)
	}
	return append(append(args, bodyFlags(selector)...), BodyPath)
}
