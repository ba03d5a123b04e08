package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"hpatch-router/shebang/oneline"
)

func main() {
	record := os.Getenv("HPATCH_SHEBANG_STUB_RECORD")
	args := os.Args[1:]
	if filepath.Base(os.Args[0]) == "shell" {
		fields, body, err := oneline.ParseArgs(args)
		if err != nil {
			os.WriteFile(record, []byte("error: "+err.Error()), 0o600)
			os.Exit(2)
		}
		args = append(fields, body)
	}
	var b strings.Builder
	for _, a := range args {
		b.WriteString(strconv.Itoa(len(a)) + ":" + a + ",")
	}
	if err := os.WriteFile(record, []byte(b.String()), 0o600); err != nil {
		os.Exit(1)
	}
}
