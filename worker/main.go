//go:build linux

package worker

import (
	"os"
	"path/filepath"
	"syscall"

	"hpatch-router/ident"
	"hpatch-router/retain"
	"hpatch-router/worker/snapshot"
)

// Main is the worker: the router binary started by the `shell` helper
// through a thread's launcher (argv[0] "shell"). args are the argv after
// argv[0]: the interpreter fields, then the exact body. Before anything
// else it authenticates the runtime (Authenticate); a refusal prints one
// line and returns 126/127 without starting anything. Bash and sh bodies
// are evaluated in-process; other interpreters read the body from
// /dev/fd/3. The result is the exit status (see the Exit constants).
func Main(args []string, stdin, stdout, stderr *os.File) int {
	sigs := notifySignals()
	t, err := Authenticate()
	if err != nil {
		return refuse(stderr, err)
	}
	if len(args) < 2 {
		stderr.WriteString("shell: want an interpreter and a script body: shell INTERPRETER [OPTIONS…] BODY (the router writes this command)\n")
		return ExitUsage
	}
	var opts []runOption
	if scripts := openScripts(filepath.Dir(t.ThreadDir), os.Getenv(snapshot.ThreadEnv)); scripts != nil {
		defer scripts.Close()
		opts = append(opts, func(r *run) { r.scripts = scripts })
	}
	return execute(args, sigs, stdin, stdout, stderr, opts...)
}

// execute runs an authenticated worker argv.
func execute(args []string, sigs chan os.Signal, stdin, stdout, stderr *os.File, opts ...runOption) int {
	becomeSubreaper()
	r, err := newRun(stdin, stdout, stderr, opts...)
	if err != nil {
		stderr.WriteString("shell: cannot set up the output streams: " + err.Error() + "\n")
		return ExitCannotRun
	}
	stop := r.watchSignals(sigs)
	defer stop()
	selector, middle, body := args[0], args[1:len(args)-1], args[len(args)-1]
	done := make(chan int, 1)
	go func() {
		if lang, name, ok := shellLang(selector); ok {
			done <- r.runShell(lang, name, middle, body)
		} else {
			done <- r.runInterpreter(selector, middle, body)
		}
	}()
	status := r.await(done)
	return r.complete(status)
}

// Authenticate verifies that this process is the launcher of the current
// thread's runtime: snapshot.Locate (ownership, permissions, manifest
// digest == snapshot name, launcher == manifest), then that the launcher
// resolves to this very executable (/proc/self/exe) with the file identity
// the router recorded in the manifest.
func Authenticate() (snapshot.Target, error) {
	t, err := snapshot.Locate(snapshot.Root(os.Getenv), os.Getenv(snapshot.ThreadEnv), os.Getuid())
	if err != nil {
		return t, err
	}
	self, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return t, &snapshot.Refusal{Code: ExitCannotRun, Msg: "cannot identify this executable (/proc/self/exe): " + err.Error()}
	}
	resolved, err := filepath.EvalSymlinks(filepath.Join(t.ThreadDir, ident.RuntimeLink))
	if err != nil || resolved != self {
		return t, &snapshot.Refusal{Code: ExitCannotRun, Msg: "the thread's launcher does not resolve to this executable (" + self + "); start commands through the installed shell helper, or restart hpatch-router"}
	}
	var st syscall.Stat_t
	m := t.Manifest
	if err := syscall.Stat("/proc/self/exe", &st); err != nil || uint64(st.Dev) != m.Dev || st.Ino != m.Ino || st.Size != m.Size || st.Mtim.Nano() != m.MtimeNs {
		return t, &snapshot.Refusal{Code: ExitCannotRun, Msg: "the router executable changed since the router started (snapshot manifest mismatch); restart hpatch-router"}
	}
	return t, nil
}

func refuse(stderr *os.File, err error) int {
	code := ExitCannotRun
	if r, ok := err.(*snapshot.Refusal); ok {
		code = r.Code
	}
	stderr.WriteString("shell: " + err.Error() + "\n")
	return code
}

// openScripts opens the thread's retained-script directory with the
// store's own checks (retain.OpenScriptsIn: real directories owned by this
// user and writable by nobody else, the opened directory being the checked
// one); private commands resolve @shell/ references only inside it. A
// thread without a trustworthy one gets nil: hread then says there are no
// retained scripts.
func openScripts(root, thread string) *os.Root {
	dir, err := os.OpenRoot(root)
	if err != nil {
		return nil
	}
	defer dir.Close()
	scripts, err := retain.OpenScriptsIn(dir, thread)
	if err != nil {
		return nil
	}
	return scripts
}
