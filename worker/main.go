//go:build linux

package worker

import (
	"os"
	"path/filepath"
	"syscall"

	"hpatch-router/ident"
	"hpatch-router/retain"
	"hpatch-router/shebang"
	"hpatch-router/worker/snapshot"
)

// Main is the worker: the router binary started by the `shell` helper
// through a thread's launcher (argv[0] "shell"). args are the argv after
// argv[0]: the interpreter fields, then /dev/fd/N, the sealed memfd the
// helper put the exact body in (snapshot.TakeBody; the body itself is
// never in the worker's argv). Before anything else it authenticates the
// runtime (Authenticate); a refusal prints one line and returns 126/127
// without starting anything. Bash and sh bodies are evaluated in-process;
// other interpreters read the body from the same memfd as /dev/fd/3. The
// result is the exit status (see the Exit constants).
func Main(args []string, stdin, stdout, stderr *os.File) int {
	sigs := notifySignals()
	t, err := Authenticate()
	if err != nil {
		return refuse(stderr, err)
	}
	nameProcess()
	if len(args) < 2 {
		stderr.WriteString("shell: want an interpreter and the script body's descriptor: shell INTERPRETER [OPTIONS…] /dev/fd/N (the shell helper writes this command)\n")
		return ExitUsage
	}
	body, err := snapshot.TakeBody(args[len(args)-1])
	if err != nil {
		return refuse(stderr, err)
	}
	defer body.Close()
	var opts []runOption
	if scripts := openScripts(filepath.Dir(t.ThreadDir), os.Getenv(snapshot.ThreadEnv)); scripts != nil {
		defer scripts.Close()
		opts = append(opts, func(r *run) { r.scripts = scripts })
	}
	return execute(args[:len(args)-1], body, sigs, stdin, stdout, stderr, opts...)
}

// execute runs an authenticated worker: fields are the interpreter and its
// options, body the sealed memfd holding the script.
func execute(fields []string, body *os.File, sigs chan os.Signal, stdin, stdout, stderr *os.File, opts ...runOption) int {
	becomeSubreaper()
	r := newRun(stdin, stdout, stderr, opts...)
	stop := r.watchSignals(sigs)
	defer stop()
	selector, middle := fields[0], fields[1:]
	done := make(chan int, 1)
	go func() {
		if selector == shebang.StdinMarker {
			done <- r.runStdin(middle, body)
			return
		}
		lang, name, ok := shellLang(selector)
		if !ok {
			done <- r.runInterpreter(selector, middle, body)
			return
		}
		text, err := snapshot.ReadBody(body)
		if err != nil {
			r.note("cannot read the script body: " + err.Error())
			done <- ExitCannotRun
			return
		}
		body.Close() // the evaluation has its text; commands must not see it
		done <- r.runShell(lang, name, middle, text)
	}()
	status := r.await(done)
	return r.complete(status)
}

// Authenticate verifies that this process is the launcher of the current
// thread's runtime: snapshot.Root and snapshot.Locate (ownership,
// permissions, manifest digest == snapshot name, launcher == manifest),
// then that the launcher resolves to this very executable (/proc/self/exe)
// with the file identity the router recorded in the manifest, owned by
// this user or root and writable by nobody else.
func Authenticate() (snapshot.Target, error) {
	root, err := snapshot.Root(os.Getenv, os.Getuid())
	if err != nil {
		return snapshot.Target{}, err
	}
	t, err := snapshot.Locate(root, os.Getenv(snapshot.ThreadEnv), os.Getuid())
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
	if err := syscall.Stat("/proc/self/exe", &st); err != nil || !t.Manifest.Describes(&st) {
		return t, &snapshot.Refusal{Code: ExitCannotRun, Msg: "the router executable changed since the router started (snapshot manifest mismatch); restart hpatch-router"}
	}
	if p := snapshot.ExecutableProblem(&st, os.Getuid(), &t.Manifest); p != "" {
		return t, &snapshot.Refusal{Code: ExitCannotRun, Msg: "the router executable " + self + " " + p + "; fix it and restart hpatch-router"}
	}
	return t, nil
}

// nameProcess gives the worker back its name for ps and top: the helper
// execs through /proc/self/fd/N, which names a process after the
// descriptor number. /proc/self/comm is the main thread's name (prctl
// would rename only the calling thread). Plain system calls, not
// os.WriteFile: an *os.File registers with the runtime's poller, and
// being the worker's first file it would set the poller up (epoll,
// eventfd, their registrations: 8 more system calls) for one write that
// cannot block; a plain `echo` run then never needs the poller at all.
func nameProcess() {
	fd, err := syscall.Open("/proc/self/comm", syscall.O_WRONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	syscall.Write(fd, []byte("hpatch-router"))
	syscall.Close(fd)
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
