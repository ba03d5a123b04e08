package shebang

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
)

// ParseParamsShape extracts exec_command argument names (cmd excluded) for
// Options.ParamsShape from one of the shapes a request or a person gives:
//
//   - a JSON array of names: ["workdir","tty"];
//   - TypeScript argument-object fields, one per line (`workdir?: string;`),
//     alone or inside the full `exec_command(args: { … })` declaration,
//     whose return-type fields are not arguments and are skipped;
//   - a Markdown bullet list (`- workdir (string): …`, `- `tty`: …`).
//
// Comments are ignored. It returns nil when it recognizes no name, which
// callers treat as "shape unknown: accept any key".
func ParseParamsShape(text string) []string {
	if t := strings.TrimSpace(text); strings.HasPrefix(t, "[") {
		var names []string
		if json.Unmarshal([]byte(t), &names) != nil {
			return nil
		}
		return cleanNames(names)
	}
	if _, after, ok := strings.Cut(text, "exec_command(args: {"); ok {
		text = after
	}
	field := regexp.MustCompile(`^\s*(?:[-*]\s+)?` + "`?" + `([A-Za-z_$][\w$]*)` + "`?" + `\s*(?:\?\s*:|:|\()`)
	var names []string
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "}") {
			break // end of the argument object; the result type follows
		}
		if strings.HasPrefix(t, "//") {
			continue
		}
		if m := field.FindStringSubmatch(t); m != nil {
			names = append(names, m[1])
		}
	}
	return cleanNames(names)
}

// cleanNames drops cmd, empties and repeats, keeping the first order.
func cleanNames(names []string) []string {
	var out []string
	for _, n := range names {
		if n != "" && n != "cmd" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}
