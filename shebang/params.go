package shebang

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"hpatch-router/jsonline"
)

// param is one #!params field, in the order the model wrote it; value is
// compact JSON.
type param struct {
	key   string
	value []byte
}

// parseParams validates the #!params JSON: one object, no duplicate keys,
// no cmd (the body supplies it), login only as false (the worker relies on
// a non-login shell), and — when the request told us the exec_command
// argument shape — only known keys (login is always known: the carrier
// sends it anyway), each with a value of its declared type, so Codex never
// answers with a parse error about JSON the model did not write.
func parseParams(text string, line int, shape []Param) ([]param, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, diag(line, fmt.Sprintf("#!params is not valid JSON (%v); write one object, e.g. #!params={\"workdir\":\"/tmp\"}", jsonErr(err)))
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, diag(line, "#!params must be a JSON object, e.g. #!params={\"workdir\":\"/tmp\",\"tty\":true}")
	}
	var out []param
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, diag(line, fmt.Sprintf("#!params is not valid JSON (%v)", jsonErr(err)))
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, diag(line, fmt.Sprintf("#!params is not valid JSON (%v)", jsonErr(err)))
		}
		switch {
		case key == "cmd":
			return nil, diag(line, "#!params must not contain cmd: the script body is the command; remove the cmd field")
		case key == "login" && string(raw) != "false":
			return nil, diag(line, "#!params login must be false (the worker needs a non-login shell); remove it or write \"login\":false")
		case hasParam(out, key):
			return nil, diag(line, fmt.Sprintf("#!params repeats the key %q; keep one", key))
		case shape != nil && key != "login" && !declares(shape, key):
			return nil, diag(line, fmt.Sprintf("#!params key %q is not an exec_command argument; known: %s", key, strings.Join(ParamsShape{Params: shape}.Names(), ", ")))
		}
		if err := checkParamType(shape, key, raw, line); err != nil {
			return nil, err
		}
		if key == shellParam {
			if err := checkShellParam(raw, line); err != nil {
				return nil, err
			}
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			return nil, diag(line, fmt.Sprintf("#!params is not valid JSON (%v)", jsonErr(err)))
		}
		out = append(out, param{key, buf.Bytes()})
	}
	if _, err := dec.Token(); err != nil {
		return nil, diag(line, fmt.Sprintf("#!params is not valid JSON (%v)", jsonErr(err)))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, diag(line, "#!params has text after its JSON object; write exactly one object")
	}
	return out, nil
}

// checkParamType rejects a value the declared type of key does not admit.
func checkParamType(shape []Param, key string, raw []byte, line int) error {
	i := slices.IndexFunc(shape, func(p Param) bool { return p.Name == key })
	if i < 0 || shape[i].Type.Admits(raw) {
		return nil
	}
	return diag(line, fmt.Sprintf("#!params key %q must be %s, as exec_command declares it, not %s", key, shape[i].Type.Expect(), describeValue(bytes.TrimSpace(raw))))
}

// jsonErr names an unexpected end plainly instead of as "EOF".
func jsonErr(err error) string {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return "unexpected end of input"
	}
	return err.Error()
}

// shellParam is the exec_command argument that picks the shell Codex runs
// cmd with (else the user's passwd shell, or bash).
const shellParam = "shell"

// checkShellParam accepts a #!params shell only when it names a POSIX-family
// shell: the carrier's worker command and templates are POSIX shell text.
func checkShellParam(raw json.RawMessage, line int) error {
	var name string
	if json.Unmarshal(raw, &name) == nil && posixShell(name) {
		return nil
	}
	return diag(line, fmt.Sprintf("#!params shell %s is not a POSIX shell; name sh, bash, dash, zsh, ksh, mksh, ash, yash or posh, or remove \"shell\" (templates then run under bash)", raw))
}

// posixShell reports a shell whose case-insensitive basename is one of the
// POSIX family, which all read the carrier's command line alike.
func posixShell(name string) bool {
	switch strings.ToLower(name[strings.LastIndexByte(name, '/')+1:]) {
	case "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh":
		return true
	}
	return false
}

func hasParam(params []param, key string) bool {
	return slices.ContainsFunc(params, func(p param) bool { return p.key == key })
}

// renderArgs is the exec_command argument object as compact JSON: "cmd"
// first, the params in the order given, "shell":"bash" when pinned, then
// "login":false unless params gave it, so Codex never wraps the worker in
// a login shell by default.
func renderArgs(cmd string, params []param, pinBash bool) []byte {
	var b bytes.Buffer
	b.WriteString(`{"cmd":`)
	b.WriteString(jsonline.String(cmd))
	login := false
	for _, p := range params {
		b.WriteByte(',')
		b.WriteString(jsonline.String(p.key))
		b.WriteByte(':')
		b.Write(p.value)
		login = login || p.key == "login"
	}
	if pinBash {
		b.WriteString(`,"shell":"bash"`)
	}
	if !login {
		b.WriteString(`,"login":false`)
	}
	b.WriteByte('}')
	return b.Bytes()
}
