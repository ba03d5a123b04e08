//go:build linux

package worker_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"hpatch-router/internal/testenv"
	"hpatch-router/shebang"
)

// bashIdioms is the Bash-differences corpus (issue 35 item 3): idioms
// models write, each run under GNU Bash and under the worker's in-process
// Bash (mvdan/sh). An idiom with no note must print the same stdout and
// exit with the same status in both. An idiom with a note still differs
// (else the note is stale and must go), and translating it gives the note
// that tells the model what to write instead. The README's list of
// differences is this table.
var bashIdioms = []struct {
	name, script string
	note         string // substring of the shell note; "" = the two agree
}{
	// Made to agree by configuration (worker/bashcompat.go).
	{"BASH_VERSION is set", `[ -n "$BASH_VERSION" ] && echo bash; echo "${BASH_VERSINFO[0]}" | grep -c '^[45]$'`, ""},
	{"BASH_VERSINFO major >= 4", `(( BASH_VERSINFO[0] >= 4 )) && echo modern`, ""},
	{"OSTYPE, MACHTYPE, HOSTNAME", `[[ $OSTYPE == linux* ]] && echo linux; [[ $MACHTYPE == *-linux-gnu ]] && echo gnu; [ "$HOSTNAME" = "$(hostname)" ] && echo host`, ""},
	{"BASHPID and EPOCHSECONDS", `[[ $BASHPID =~ ^[0-9]+$ ]] && echo pid; (( EPOCHSECONDS > 1700000000 )) && echo now; [[ $EPOCHREALTIME == *.* ]] && echo real`, ""},
	{"Bash's variables are not exported", `env | grep -c '^BASH_VERSION=' || true`, ""},
	{"printf %q", `printf '%q\n' "a b" "it's" 'x$y' '' $'a\nb' $'t\tx' '~x' 'a~b' '#x' 'a#b' 'a=~b' 'a,b' 'x{y}' 'a"b' 'é ü' $'\x1b[0m' $'\x01'`, ""},
	{"printf %q with width, reused format", `printf '%s=%q\n' k 'v w' k2 x; printf '[%6q]\n' ab`, ""},
	{"printf floating point", `printf '%.2f|%5.1f|%08.3f|%f|%e|%g|%G\n' 3.14159 2.25 3.14159 2.5 1234.5 0.0001 1e20`, ""},
	{"printf integers", `printf '%d %i %5d %-5d| %05d %+d %x %X %#x %o %#o %u\n' 42 -7 3 3 42 5 255 255 255 8 8 7`, ""},
	{"printf char constants and bases", `printf '%d %d %d %d\n' "'A" 0x1f 010 -0`, ""},
	{"printf strings", `printf '%s|%10s|%-10s|%.3s|%c\n' a b c abcdef xyz`, ""},
	{"printf %b and escapes", `printf '%b\n' 'a\tb' 'c\0101' 'x\cy'; printf 'tab\there\n\x41\101\\\n'`, ""},
	{"printf reuses the format, fills missing with empty/0", `printf '%s-%d\n' a 1 b`, ""},
	{"printf bad number", `printf '%d\n' abc; echo "status $?"`, ""},
	{"printf %%", `printf '100%%\n'`, ""},
	{"a script's own printf function is called", `printf() { echo "mine: $*"; }; printf '%q' a`, ""},
	// The same in both without configuration.
	{"[[ =~ ]] with BASH_REMATCH", `[[ "v1.2.3" =~ ^v([0-9]+)\.([0-9]+) ]] && echo "${BASH_REMATCH[0]} ${BASH_REMATCH[1]} ${BASH_REMATCH[2]}"`, ""},
	{"mapfile and readarray", `mapfile -t lines < <(printf 'a\nb\n'); echo "${#lines[@]} ${lines[1]}"; readarray -t arr <<< $'x\ny'; echo "${arr[@]}"`, ""},
	{"select", `select x in a b; do echo "$x"; break; done <<< 1 2>/dev/null`, ""},
	{"shopt nullglob", `shopt -s nullglob; for f in /nonexistent*; do echo "$f"; done; echo done`, ""},
	{"trap EXIT", `trap 'echo bye' EXIT; echo hi`, ""},
	{"trap ERR", `trap 'echo err' ERR; false; echo after`, ""},
	{"brace expansion", `echo {a,b}{1,2} {1..5..2} {a..c} {01..03}`, ""},
	{"arithmetic", `echo $(( 7 / 2 )) $(( 2 ** 10 )) $(( 0x10 )) $(( 8#17 )); (( x = 3 + 4 )); echo $x; let y=5*2; echo $y; ((x++)); echo $x`, ""},
	{"associative arrays", `declare -A m=([a]=1 [b]=2); m[c]=3; for k in "${!m[@]}"; do echo "$k=${m[$k]}"; done | sort`, ""},
	{"set -o pipefail", `set -o pipefail; false | true; echo $?`, ""},
	{"process substitution", `diff <(echo a) <(echo a) && echo same; while read -r l; do echo "<$l>"; done < <(printf '1\n2\n')`, ""},
	{"$RANDOM", `x=$RANDOM; [[ $x =~ ^[0-9]+$ ]] && (( x < 32768 )) && echo num`, ""},
	{"declare -p", `declare -a a=(1 2); x=1; declare -p a x`, ""},
	{"here-string", `cat <<< "here string"; IFS=, read -r a b <<< "1,2"; echo "$a|$b"`, ""},
	{"local", `f() { local v=inner; echo $v; }; v=outer; f; echo $v`, ""},
	{"case modification and slicing", `v=hello; echo "${v^^} ${v^} ${v,,} ${v:1:3} ${v/l/L} ${v//l/L} ${#v} ${v%lo} ${v#he}"`, ""},
	{"arrays", `arr=(a b c); echo "${arr[@]:1}" "${#arr[@]}" "${!arr[@]}"; arr+=(d); echo "${arr[-1]}"`, ""},
	{"read -ra", `s="a:b:c"; IFS=: read -ra parts <<< "$s"; echo "${#parts[@]}"`, ""},
	{"set -euo pipefail", `set -euo pipefail; echo strict; false || true; echo survived`, ""},
	{"indirect and nameref", `n=v1; v1=x; echo "${!n}"; declare -n ref=v1; v1=y; echo "$ref"`, ""},
	{"getopts", `set -- -a -b val x; while getopts ab: o; do echo "$o ${OPTARG:-}"; done`, ""},
	{"set -x traces to stderr", `set -x; echo traced 2>/dev/null`, ""},
	{"C-style for", `for ((i=0;i<3;i++)); do echo -n $i; done; echo`, ""},
	{"wait for a job", `sleep 0.1 & wait "$!"; echo "w $?"`, ""},
	{"[[ -v ]]", `[[ -v HOME ]] && echo v`, ""},
	{"ANSI-C quoting and echo -e", `echo $'tab\there'; echo -e 'a\tb'`, ""},
	// Named to the model (shebang/warn_bash.go).
	{"PIPESTATUS", `true | false | true; echo "${PIPESTATUS[*]}"`, "PIPESTATUS is never set"},
	{"FUNCNAME", `f(){ echo "${FUNCNAME[0]}"; }; f`, "FUNCNAME is empty"},
	{"$! is a job handle", `sleep 0 & [[ $! =~ ^[0-9]+$ ]] && echo pid`, "$! is a job handle"},
	{"${v@Q} of a plain word", `v=hello; echo "${v@Q}"`, "${var@Q} leaves a word"},
	{"${@:-default}", `printf '%s\n' "${@:-none}"`, "${@:-…}"},
	{"printf -v", `printf -v out '%s-%s' a b; echo "$out"`, "printf -v is not supported"},
	{"printf %(…)T", `printf '%(%Y)T\n' -1 | grep -c '^[0-9]'`, "%(…)T is not supported"},
	{"coproc", `coproc cat; echo hi >&"${COPROC[1]}"; exec {COPROC[1]}>&-; read -r l <&"${COPROC[0]}"; echo "$l"`, "coproc is not supported"},
	{"wait -n", `sleep 0.1 & sleep 0.2 & wait -n; echo "one done $?"`, "wait -n is not supported"},
	{"read -t", `read -t 1 x <<< "val"; echo "$x $?"`, "read takes only"},
	{"read -n", `read -n 1 c <<< xyz; echo "$c"`, "read takes only"},
	{"read -d", `read -d , f <<< "a,b"; echo "$f"`, "read takes only"},
	{"read -p prompts on stdout", `read -r -p "name? " ans <<< yes; echo "$ans"`, "read takes only"},
	{"declare -i", `declare -i n=5+5; echo $n`, "-i, -l, -u"},
	{"declare -l/-u", `declare -l low=ABC; declare -u up=abc; echo $low $up`, "-i, -l, -u"},
	{"declare -F", `f(){ :; }; declare -F f`, "-i, -l, -u"},
	{"file descriptor 3", `exec 3>&1; echo via3 >&3; exec 3>&-`, "file descriptors above 2"},
	{"trap USR1", `trap 'echo caught' USR1; env kill -USR1 $$; sleep 0.2; echo after`, "trap handles only EXIT and ERR"},
	{"ulimit", `ulimit -n >/dev/null && echo ulimit`, "ulimit is not available"},
	{"umask", `umask >/dev/null && echo umask`, "umask is not available"},
	{"kill", `kill -0 $$ && echo alive`, "kill builtin is not available"},
	{"jobs", `sleep 0 & jobs >/dev/null; echo "jobs $?"`, "jobs is not available"},
	{"compgen", `compgen -v BASH_VERSION`, "compgen is not available"},
	{"caller", `f(){ caller >/dev/null; echo "c$?"; }; f`, "caller is not available"},
}

// TestBashIdiomsAgreeOrAreNamed runs the corpus under GNU Bash and the
// worker (through the helper, as Codex runs a carrier).
func TestBashIdiomsAgreeOrAreNamed(t *testing.T) {
	testenv.NeedTool(t, "bash")
	e := newEnv(t)
	for _, c := range bashIdioms {
		t.Run(c.name, func(t *testing.T) {
			gnu := exec.Command("bash", "-c", c.script)
			gnu.Dir = t.TempDir()
			// The worker quotes as Bash does in a UTF-8 locale; Bash in the C
			// locale (a CI environment without LANG) quotes é as $'\303\251'.
			gnu.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
			out, err := gnu.Output()
			code := exitCode(err)
			got := e.run("", "bash", c.script)
			same := got.stdout == string(out) && got.code == code
			p, terr := shebang.Translate(c.script, shebang.Options{})
			if terr != nil {
				t.Fatalf("translate: %v", terr)
			}
			warned := strings.Join(p.Warnings, "\n")
			switch {
			case c.note == "" && !same:
				t.Errorf("GNU Bash: %q (exit %d)\nworker:   %q (exit %d, stderr %q)", out, code, got.stdout, got.code, got.stderr)
			case c.note == "" && strings.Contains(warned, "shell's Bash"):
				t.Errorf("an idiom that agrees is warned about: %s", warned)
			case c.note != "" && same:
				t.Errorf("the worker now agrees with GNU Bash (%q); drop the note %q", out, c.note)
			case c.note != "" && !strings.Contains(warned, c.note):
				t.Errorf("translation warns %q, want a note with %q", p.Warnings, c.note)
			}
		})
	}
}
