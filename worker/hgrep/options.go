package hgrep

import (
	"fmt"
	"sort"
	"strings"

	"hpatch-router/rows"
)

// action says what hgrep does with one ripgrep option.
type action int

const (
	pass   action = iota // forwarded to rg unchanged
	ignore               // dropped, with one warning for all of them
	reject               // the whole command fails with exit status 2
	noop                 // accepted silently and dropped (-R, --no-encoding)
)

// option describes one ripgrep option.
type option struct {
	long   string // without "--"; empty when short-only
	short  byte   // 0 when long-only
	value  bool   // takes a value
	act    action
	reason string // for reject: why the option cannot give verified rows
}

// Reasons shared by several rejected options.
const (
	whyLine    = "changes what a line is, so rows could not be verified against the file"
	whyNoLines = "prints no lines to cite"
)

// options is ripgrep 13's option set as hgrep treats it. It is a function so
// the package holds no mutable state.
func options() []option {
	return []option{
		// Matching.
		{long: "regexp", short: 'e', value: true},
		{long: "file", short: 'f', value: true},
		{long: "ignore-case", short: 'i'},
		{long: "case-sensitive", short: 's'},
		{long: "smart-case", short: 'S'},
		{long: "fixed-strings", short: 'F'},
		{long: "no-fixed-strings"},
		{long: "word-regexp", short: 'w'},
		{long: "line-regexp", short: 'x'},
		{long: "invert-match", short: 'v'},
		{long: "no-invert-match"},
		{long: "pcre2", short: 'P'},
		{long: "no-pcre2"},
		{long: "engine", value: true},
		{long: "auto-hybrid-regex"},
		{long: "no-auto-hybrid-regex"},
		{long: "crlf"},
		{long: "no-crlf"},
		{long: "unicode"},
		{long: "no-unicode"},
		{long: "pcre2-unicode"},
		{long: "no-pcre2-unicode"},
		{long: "regex-size-limit", value: true},
		{long: "dfa-size-limit", value: true},
		{long: "max-count", short: 'm', value: true},
		{long: "passthru"},
		{long: "passthrough"},
		// Context.
		{long: "after-context", short: 'A', value: true},
		{long: "before-context", short: 'B', value: true},
		{long: "context", short: 'C', value: true},
		// File selection.
		{long: "glob", short: 'g', value: true},
		{long: "iglob", value: true},
		{long: "glob-case-insensitive"},
		{long: "no-glob-case-insensitive"},
		{long: "type", short: 't', value: true},
		{long: "type-not", short: 'T', value: true},
		{long: "type-add", value: true},
		{long: "type-clear", value: true},
		{long: "follow", short: 'L'},
		{long: "no-follow"},
		{long: "hidden", short: '.'},
		{long: "no-hidden"},
		{long: "unrestricted", short: 'u'},
		{long: "max-depth", value: true},
		{long: "maxdepth", value: true},
		{long: "max-filesize", value: true},
		{long: "one-file-system"},
		{long: "no-one-file-system"},
		{long: "ignore-file", value: true},
		{long: "ignore-file-case-insensitive"},
		{long: "no-ignore-file-case-insensitive"},
		{long: "ignore"},
		{long: "no-ignore"},
		{long: "no-ignore-dot"},
		{long: "ignore-dot"},
		{long: "no-ignore-exclude"},
		{long: "ignore-exclude"},
		{long: "no-ignore-files"},
		{long: "ignore-files"},
		{long: "no-ignore-global"},
		{long: "ignore-global"},
		{long: "no-ignore-parent"},
		{long: "ignore-parent"},
		{long: "no-ignore-vcs"},
		{long: "ignore-vcs"},
		{long: "no-require-git"},
		{long: "require-git"},
		{long: "no-ignore-messages"},
		{long: "ignore-messages"},
		{long: "no-messages"},
		{long: "messages"},
		{long: "sort", value: true},
		{long: "sortr", value: true},
		{long: "sort-files"},
		{long: "no-sort-files"},
		{long: "threads", short: 'j', value: true},
		{long: "mmap"},
		{long: "no-mmap"},
		{long: "binary", act: reject, reason: "searches binary files, whose lines are not text rows"},
		{long: "no-binary"},
		{short: 'R', act: noop}, // hgrep is recursive by default
		// Options that change what a line is.
		{long: "multiline", short: 'U', act: reject, reason: whyLine},
		{long: "no-multiline"},
		{long: "multiline-dotall", act: reject, reason: whyLine},
		{long: "no-multiline-dotall"},
		{long: "pre", value: true, act: reject, reason: "searches a preprocessor's output, not the file's lines"},
		{long: "no-pre"},
		{long: "pre-glob", value: true, act: reject, reason: "belongs to --pre, which hgrep rejects"},
		{long: "search-zip", short: 'z', act: reject, reason: "searches decompressed data, not the file's lines"},
		{long: "no-search-zip"},
		{long: "text", short: 'a', act: reject, reason: whyLine},
		{long: "no-text"},
		{long: "null-data", act: reject, reason: whyLine},
		{long: "encoding", short: 'E', value: true, act: reject, reason: "transcodes the file, so lines would not be its bytes"},
		{long: "no-encoding", act: noop}, // would undo hgrep's --encoding=none
		// Not a search.
		{long: "files", act: reject, reason: whyNoLines + "; list files with rg --files"},
		{long: "type-list", act: reject, reason: whyNoLines + "; run rg --type-list"},
		{long: "help", short: 'h', act: reject, reason: whyNoLines + "; run rg --help"},
		{long: "version", short: 'V', act: reject, reason: whyNoLines + "; run rg --version"},
		{long: "pcre2-version", act: reject, reason: whyNoLines + "; run rg --pcre2-version"},
		// Presentation: ignored with one warning.
		{long: "count", short: 'c', act: ignore},
		{long: "count-matches", act: ignore},
		{long: "files-with-matches", short: 'l', act: ignore},
		{long: "files-without-match", act: ignore},
		{long: "only-matching", short: 'o', act: ignore},
		{long: "json", act: ignore},
		{long: "no-json", act: ignore},
		{long: "vimgrep", act: ignore},
		{long: "replace", short: 'r', value: true, act: ignore},
		{long: "color", value: true, act: ignore},
		{long: "colour", value: true, act: ignore},
		{long: "colors", value: true, act: ignore},
		{long: "line-number", short: 'n', act: ignore},
		{long: "no-line-number", short: 'N', act: ignore},
		{long: "heading", act: ignore},
		{long: "no-heading", act: ignore},
		{long: "with-filename", short: 'H', act: ignore},
		{long: "no-filename", short: 'I', act: ignore},
		{long: "column", act: ignore},
		{long: "no-column", act: ignore},
		{long: "byte-offset", short: 'b', act: ignore},
		{long: "no-byte-offset", act: ignore},
		{long: "pretty", short: 'p', act: ignore},
		{long: "null", short: '0', act: ignore},
		{long: "quiet", short: 'q', act: ignore},
		{long: "trim", act: ignore},
		{long: "no-trim", act: ignore},
		{long: "max-columns", short: 'M', value: true, act: ignore},
		{long: "max-columns-preview", act: ignore},
		{long: "no-max-columns-preview", act: ignore},
		{long: "context-separator", value: true, act: ignore},
		{long: "no-context-separator", act: ignore},
		{long: "field-context-separator", value: true, act: ignore},
		{long: "field-match-separator", value: true, act: ignore},
		{long: "path-separator", value: true, act: ignore},
		{long: "include-zero", act: ignore},
		{long: "no-include-zero", act: ignore},
		{long: "stats", act: ignore},
		{long: "no-stats", act: ignore},
		{long: "debug", act: ignore},
		{long: "trace", act: ignore},
		{long: "line-buffered", act: ignore},
		{long: "no-line-buffered", act: ignore},
		{long: "block-buffered", act: ignore},
		{long: "no-block-buffered", act: ignore},
		{long: "no-config", act: noop}, // hgrep always passes it
	}
}

// optionTable indexes options by long and short name.
type optionTable struct {
	long  map[string]option
	short map[byte]option
}

func newOptionTable() optionTable {
	t := optionTable{long: map[string]option{}, short: map[byte]option{}}
	for _, o := range options() {
		if o.long != "" {
			t.long[o.long] = o
		}
		if o.short != 0 {
			t.short[o.short] = o
		}
	}
	return t
}

// plan is the result of classifying hgrep's arguments.
type plan struct {
	rgArgs      []string // options for rg, then "--", the pattern (if positional) and paths
	ignored     []string // presentation options that were dropped, as the model spelled them
	defaultPath bool     // no path was given: "." is searched and "./" stripped from paths
	named       []string // files rg is told to read: paths, pattern files, ignore files
}

// usageError is a rejected command line; its text is one line.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// usagef formats a usage error on one line, whatever the arguments hold.
func usagef(format string, a ...any) error {
	return &usageError{rows.OneLineEscaped(fmt.Sprintf(format, a...))}
}

// classify turns hgrep's arguments (without the command name) into rg's.
func classify(args []string) (plan, error) {
	t := newOptionTable()
	var p plan
	var positional []string
	explicitPattern := false
	ignoredSeen := map[string]bool{}
	use := func(o option, spelled string, val *string) error {
		switch o.act {
		case reject:
			return usagef("%s %s; drop it", spelled, o.reason)
		case ignore:
			if !ignoredSeen[spelled] {
				ignoredSeen[spelled] = true
				p.ignored = append(p.ignored, spelled)
			}
			return nil
		case noop:
			return nil
		}
		if o.long == "regexp" || o.long == "file" {
			explicitPattern = true
		}
		name := "--" + o.long
		if o.long == "" {
			name = "-" + string(o.short)
		}
		if val != nil {
			if o.long == "file" && *val == "-" {
				return usagef("-f - would read patterns from standard input; name a pattern file")
			}
			if o.long == "file" || o.long == "ignore-file" {
				p.named = append(p.named, *val)
			}
			p.rgArgs = append(p.rgArgs, name+"="+*val)
		} else {
			p.rgArgs = append(p.rgArgs, name)
		}
		return nil
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			positional = append(positional, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			o, ok := t.long[name]
			if !ok {
				return p, usagef("unknown option --%s; hgrep takes ripgrep 13's options", name)
			}
			if !o.value {
				if hasVal {
					return p, usagef("--%s takes no value", name)
				}
				if err := use(o, "--"+name, nil); err != nil {
					return p, err
				}
				continue
			}
			if !hasVal {
				if i+1 >= len(args) {
					return p, usagef("--%s needs a value", name)
				}
				i++
				val = args[i]
			}
			if err := use(o, "--"+name, &val); err != nil {
				return p, err
			}
		case len(a) > 1 && a[0] == '-':
			// A cluster of short options; a value-taking one ends it.
			for j := 1; j < len(a); j++ {
				o, ok := t.short[a[j]]
				if !ok {
					return p, usagef("unknown option -%c; hgrep takes ripgrep 13's options", a[j])
				}
				spelled := "-" + string(a[j])
				if !o.value {
					if err := use(o, spelled, nil); err != nil {
						return p, err
					}
					continue
				}
				val := a[j+1:]
				if val == "" {
					if i+1 >= len(args) {
						return p, usagef("%s needs a value", spelled)
					}
					i++
					val = args[i]
				}
				if err := use(o, spelled, &val); err != nil {
					return p, err
				}
				break
			}
		default:
			positional = append(positional, a)
		}
	}
	if !explicitPattern {
		if len(positional) == 0 {
			return p, usagef("no pattern; usage: hgrep [OPTIONS] PATTERN [PATH ...]")
		}
		p.rgArgs = append(p.rgArgs, "--", positional[0])
		positional = positional[1:]
	} else {
		p.rgArgs = append(p.rgArgs, "--")
	}
	for _, path := range positional {
		if path == "-" {
			return p, usagef("path - would search standard input, which has no file rows; name files")
		}
	}
	p.named = append(p.named, positional...)
	if len(positional) == 0 {
		p.defaultPath = true
		positional = []string{"."}
	}
	p.rgArgs = append(p.rgArgs, positional...)
	return p, nil
}

// ignoredWarning is the one warning line for dropped presentation options.
func ignoredWarning(ignored []string) string {
	s := append([]string(nil), ignored...)
	sort.Strings(s)
	return "hgrep: ignored " + strings.Join(s, " ") +
		": hgrep always prints rows \"PATH\":LINE:HASH TEXT for matching and context lines"
}
