package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// readmeSection is the README from the line heading up to the next "## "
// section.
func readmeSection(t *testing.T, heading string) string {
	t.Helper()
	return docSection(t, "README.md", heading)
}

// docSection is the file (README.md or docs/NAME.md, from the repository
// root) from the line heading up to the next "## " section.
func docSection(t *testing.T, file, heading string) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "..", file))
	if err != nil {
		t.Fatal(err)
	}
	section := string(doc)
	start := strings.Index(section, "\n"+heading+"\n")
	if start < 0 {
		t.Fatalf("%s has no %q section", file, heading)
	}
	section = section[start+1:]
	if end := strings.Index(section[1:], "\n## "); end >= 0 {
		section = section[:end+1]
	}
	return section
}

// TestREADMETranslateExamples runs the `$ …` commands of the "See a
// translation" section of docs/shell-tool.md and compares what they print with the lines shown
// under each. It runs translate in-process and does what printf, jq's
// `{a, b}` projection and `echo "exit $?"` do, so neither jq nor a shell is
// needed: the README stays true without tools installed.
func TestREADMETranslateExamples(t *testing.T) {
	section := docSection(t, "docs/shell-tool.md", "### See a translation")
	examples := readmeExamples(section)
	if len(examples) < 5 {
		t.Fatalf("found %d examples in the README section; want the translate examples", len(examples))
	}
	cmdRE := regexp.MustCompile(`^printf '([^']*)' \| hpatch-router translate((?: --?[^|;]+)?)(?: \| jq -c '\{([^}]*)\}')?(; echo "exit \$\?")?$`)
	for _, ex := range examples {
		t.Run(ex.cmd, func(t *testing.T) {
			m := cmdRE.FindStringSubmatch(ex.cmd)
			if m == nil {
				t.Fatalf("README command is not of the form the test can run: %s", ex.cmd)
			}
			var out, errb bytes.Buffer
			code := runTranslate(context.Background(), strings.Fields(m[2]), stdio{strings.NewReader(printfText(t, m[1])), &out, &errb})
			got := errb.String()
			if m[3] != "" {
				got += jqProject(t, out.Bytes(), m[3])
			} else {
				got += out.String()
			}
			if m[4] != "" {
				got += "exit " + strconv.Itoa(code) + "\n"
			}
			if got != ex.want {
				t.Errorf("README shows\n%s\nbut the command prints\n%s", ex.want, got)
			}
		})
	}
}

type readmeExample struct{ cmd, want string }

// readmeExamples collects each `$ command` line of the section's code
// blocks and the output lines that follow it. A block may be indented (in
// a list item): its lines lose the fence's indentation.
func readmeExamples(section string) []readmeExample {
	var out []readmeExample
	inBlock, indent := false, ""
	for _, line := range strings.Split(section, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if strings.HasPrefix(trimmed, "```") {
			inBlock = !inBlock
			indent = line[:len(line)-len(trimmed)]
			continue
		}
		if !inBlock {
			continue
		}
		line = strings.TrimPrefix(line, indent)
		switch {
		case strings.HasPrefix(line, "$ "):
			out = append(out, readmeExample{cmd: strings.TrimPrefix(line, "$ ")})
		case len(out) > 0:
			out[len(out)-1].want += line + "\n"
		}
	}
	return out
}

// printfText is what printf prints for a format with the escapes the
// README uses.
func printfText(t *testing.T, format string) string {
	t.Helper()
	r := strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\\`, `\`, `\"`, `"`, "%%", "%")
	if strings.Contains(strings.NewReplacer(`\n`, "", `\t`, "", `\\`, "", `\"`, "", "%%", "").Replace(format), `\`) ||
		strings.Contains(strings.ReplaceAll(format, "%%", ""), "%") {
		t.Fatalf("printf format %q uses an escape or directive the test does not emulate", format)
	}
	return r.Replace(format)
}

// jqProject is `jq -c '{a, b}'` on one JSON object: those keys, in that
// order, compact, with <, > and & as they are.
func jqProject(t *testing.T, doc []byte, keys string) string {
	t.Helper()
	var obj map[string]any
	if err := json.Unmarshal(doc, &obj); err != nil {
		t.Fatalf("translate printed %q: %v", doc, err)
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range strings.Split(keys, ",") {
		k = strings.TrimSpace(k)
		if i > 0 {
			b.WriteByte(',')
		}
		var v bytes.Buffer
		enc := json.NewEncoder(&v)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(obj[k]); err != nil {
			t.Fatal(err)
		}
		b.WriteString(strconv.Quote(k))
		b.WriteByte(':')
		b.Write(bytes.TrimSuffix(v.Bytes(), []byte("\n")))
	}
	b.WriteString("}\n")
	return b.String()
}
