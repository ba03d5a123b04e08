package shebang

import (
	"fmt"

	"hpatch-router/shebang/oneline"
)

// Linux bounds one argv string by MAX_ARG_STRLEN (131072 bytes including
// its NUL). Codex runs the carrier's cmd as one argument of `sh -c`, and
// the helper receives each argv value as one argument of `shell`, so both
// must fit.
const (
	MaxArgBytes = 131071
	MaxArgv     = 256
)

// workerCommand renders `shell [-e] <fields…> <body>` as one physical line
// that every POSIX shell reads byte for byte (package oneline: bare or
// single-quoted values; a body with line terminators or other unshowable
// bytes in the helper's escape form). Bash's $'…' is never used: dash, the
// /bin/sh of Debian and Ubuntu users, does not read it.
func workerCommand(fields []string, body string) (string, error) {
	cmd, err := oneline.Command(fields, body)
	if err != nil {
		return "", diag(1, "cannot write the shebang on the command line ("+err.Error()+"); fix the shebang line")
	}
	return cmd, nil
}

// checkFields rejects a shebang whose fields hold a byte one command line
// cannot show (a control character or an invisible rune): the helper
// escapes only the body.
func checkFields(fields []string) error {
	for i, f := range fields {
		if !oneline.Showable(f) {
			return diag(1, fmt.Sprintf("shebang field %d %s holds a control character or an invisible character; write the interpreter and its options in plain text", i+1, oneline.Quote(oneline.Escape(f))))
		}
	}
	return nil
}

// checkArgv bounds the worker argv before anything is rendered.
func checkArgv(argv []string, bodyLine int) error {
	if len(argv) > MaxArgv {
		return diag(1, fmt.Sprintf("the shebang gives %d argv values, over the limit of %d; pass fewer interpreter arguments", len(argv), MaxArgv))
	}
	for i, v := range argv {
		if len(v) <= MaxArgBytes {
			continue
		}
		if i == len(argv)-1 {
			return diag(bodyLine, fmt.Sprintf("the script body is %d bytes, over the %d-byte argv limit; shorten it or split it into several calls", len(v), MaxArgBytes))
		}
		return diag(1, fmt.Sprintf("shebang field %d is %d bytes, over the %d-byte argv limit", i+1, len(v), MaxArgBytes))
	}
	return nil
}

// checkCmd bounds the rendered command: Codex passes it as one argv string.
func checkCmd(cmd string) error {
	if len(cmd) > MaxArgBytes {
		return diag(0, fmt.Sprintf("the translated command is %d bytes after quoting, over the %d-byte argv limit; shorten the script or split it into several calls", len(cmd), MaxArgBytes))
	}
	return nil
}
