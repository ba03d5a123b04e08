// Package scan owns the lexical rules the inspect_file outliners share:
// byte classes (ASCII letters and digits), bracket pairs, where a line
// comment ends (at LF or CR, as the project's rows end lines) and how a
// one-line quoted string is read (a backslash escapes the next byte, a
// backslash before CRLF continues the string, an unescaped line break
// leaves it unterminated). JavaScript's quoted strings and Python's
// plain ones follow that rule; what differs stays with its language
// (template literals, regular expressions and JSX in jsts, triple quotes
// and f-string fields in python, Markdown's inline syntax in markdown).
package scan
