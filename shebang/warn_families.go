package shebang

import "strings"

// The tables of the A16 wrapper detection (warn.go): which commands are
// prefixes that run another command, which are interpreters, and which of
// their options hold an inline program or take a value. Functions with
// switches rather than maps keep them immutable.

// prefix is how a prefix command reads its own arguments.
type prefix struct {
	valueShort  string   // option letters that take the next word as value
	valueLong   []string // long options that take the next word as value
	assignments bool     // NAME=value words before the command (env, sudo)
	operands    int      // operands before the command (timeout DURATION)
}

func prefixSpec(name string) (prefix, bool) {
	switch name {
	case "sudo":
		return prefix{valueShort: "CDghpRrtTUu", assignments: true, valueLong: []string{
			"--close-from", "--chdir", "--group", "--host", "--prompt", "--chroot", "--role",
			"--type", "--command-timeout", "--other-user", "--user"}}, true
	case "doas":
		return prefix{valueShort: "uC"}, true
	case "env":
		return prefix{valueShort: "uCS", assignments: true, valueLong: []string{"--unset", "--chdir", "--split-string"}}, true
	case "command", "nohup", "setsid":
		return prefix{}, true
	case "exec":
		return prefix{valueShort: "a"}, true
	case "nice":
		return prefix{valueShort: "n", valueLong: []string{"--adjustment"}}, true
	case "ionice":
		return prefix{valueShort: "cn", valueLong: []string{"--class", "--classdata"}}, true
	case "timeout":
		return prefix{valueShort: "sk", valueLong: []string{"--signal", "--kill-after"}, operands: 1}, true
	case "time":
		return prefix{valueShort: "fo", valueLong: []string{"--format", "--output"}}, true
	case "stdbuf":
		return prefix{valueShort: "ioe", valueLong: []string{"--input", "--output", "--error"}}, true
	case "taskset":
		return prefix{operands: 1}, true
	case "xargs":
		return prefix{valueShort: "adEILnPs", valueLong: []string{
			"--arg-file", "--delimiter", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"}}, true
	}
	return prefix{}, false
}

// interpreterFamily maps a command name to the family its options belong
// to: python3.12 and pypy3 are "python", zsh is a shell, and so on.
func interpreterFamily(name string) string {
	base := strings.ToLower(baseName(name))
	base = strings.TrimRight(base, "0123456789.")
	switch base {
	case "python", "pypy":
		return "python"
	case "node", "nodejs", "bun":
		return "node"
	case "bash", "sh", "zsh", "dash", "ksh", "mksh", "fish":
		return "bash"
	case "perl", "ruby", "php", "lua", "luajit", "osascript", "rscript", "tclsh", "pwsh", "powershell",
		"deno", "psql", "mysql", "duckdb":
		return base
	case "sqlite":
		return "sqlite3"
	case "mariadb":
		return "mysql"
	}
	return ""
}

// isSQLClient: families whose inline program is SQL, not a script.
func isSQLClient(family string) bool {
	switch family {
	case "psql", "mysql", "sqlite3", "duckdb":
		return true
	}
	return false
}

// wordOptions: families whose options are whole words (-cmd, -Command),
// not clusters of letters.
func wordOptions(family string) bool {
	switch family {
	case "sqlite3", "duckdb", "pwsh", "powershell":
		return true
	}
	return false
}

// inlineShort is the kind of an option letter that makes the next word
// (or the rest of the cluster) the program.
func inlineShort(family string, c byte) string {
	switch {
	case (family == "python" || family == "bash") && c == 'c':
		return family + " -c"
	case family == "node" && (c == 'e' || c == 'p'):
		return "node -e"
	case (family == "perl" || family == "ruby") && (c == 'e' || c == 'E'):
		return family + " -e"
	case (family == "lua" || family == "luajit" || family == "osascript" || family == "rscript") && c == 'e':
		return family + " -e"
	case family == "php" && c == 'r':
		return "php -r"
	case family == "psql" && c == 'c':
		return "psql -c"
	case family == "mysql" && c == 'e':
		return "mysql -e"
	}
	return ""
}

// inlineLong is the kind of a long option that holds the program.
func inlineLong(family, name string) string {
	switch {
	case family == "node" && (name == "--eval" || name == "--print"):
		return "node -e"
	case family == "psql" && name == "--command":
		return "psql -c"
	case family == "mysql" && name == "--execute":
		return "mysql -e"
	case name == "--command" || name == "--execute":
		return name
	}
	return ""
}

// inlineWordOption is the kind of a word option (leading dashes removed,
// lower case) that holds the program.
func inlineWordOption(family, name string) string {
	switch {
	case (family == "pwsh" || family == "powershell") && (name == "c" || name == "command"):
		return "--command"
	case family == "sqlite3" && name == "cmd", family == "duckdb" && (name == "c" || name == "cmd"):
		return family + " SQL argument"
	}
	return ""
}

func valueShort(family string, c byte) bool {
	switch family {
	case "python":
		return c == 'W' || c == 'X'
	case "node":
		return c == 'r' || c == 'C'
	case "bash":
		return c == 'o' || c == 'O'
	case "ruby":
		return c == 'I' || c == 'r' || c == 'C'
	case "php":
		return c == 'd' || c == 'c'
	case "lua", "luajit":
		return c == 'l'
	case "psql":
		return strings.IndexByte("dhpUfovPTLFR", c) >= 0
	case "mysql":
		return strings.IndexByte("uhPDS", c) >= 0
	}
	return false
}

func valueLong(family, name string) bool {
	switch family {
	case "node":
		switch name {
		case "--require", "--import", "--loader", "--experimental-loader", "--conditions", "--title", "--input-type":
			return true
		}
	case "bash":
		return name == "--rcfile" || name == "--init-file"
	case "psql":
		switch name {
		case "--dbname", "--host", "--port", "--username", "--file", "--output", "--set", "--variable", "--pset":
			return true
		}
	case "mysql":
		switch name {
		case "--user", "--host", "--port", "--database", "--socket":
			return true
		}
	}
	return false
}

func valueWordOption(family, name string) bool {
	switch family {
	case "sqlite3", "duckdb":
		switch name {
		case "init", "separator", "newline", "nullvalue", "vfs", "mmap", "maxsize", "escape", "lookaside", "pagecache", "heap":
			return true
		}
	case "pwsh", "powershell":
		switch name {
		case "f", "file", "executionpolicy", "workingdirectory", "wd", "configurationname", "outputformat", "inputformat":
			return true
		}
	}
	return false
}

// warningText is the one-line notice for a kind; the carrier prints it
// before the result.
func warningText(kind string) string {
	switch kind {
	case kindInterpHeredoc:
		return "shell: note: an interpreter heredoc is not needed; start the shell input with a shebang such as #!python3 and write the program as the body."
	case kindInterpHereString:
		return "shell: note: a here-string that feeds an interpreter is not needed; start the shell input with a shebang such as #!python3 and write the program as the body."
	case kindGenericHeredoc:
		return "shell: note: a heredoc adds a quoting layer; if it feeds a program, make that program the body behind a shebang (e.g. #!python3) and use #!cmd= for a pipeline around it."
	case "--command", "--execute":
		return "shell: note: " + kind + " passes a program through shell quoting; write the program as the shell input behind a shebang instead."
	}
	if client, _, _ := strings.Cut(kind, " "); isSQLClient(client) {
		return "shell: note: `" + kind + "` puts SQL in shell quoting; send the SQL as the body instead: first line #!cat, then #!cmd={.} | " + client + " …"
	}
	return "shell: note: `" + kind + "` wraps a program in shell quoting; write the program as the shell input behind a shebang instead (e.g. #!python3, #!node)."
}
