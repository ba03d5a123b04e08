package bashquote

import "mvdan.cc/sh/v3/syntax"

// Word is s written as one Bash word that reads back as exactly s. A NUL
// byte has no Bash spelling: it is an error.
func Word(s string) (string, error) { return syntax.Quote(s, syntax.LangBash) }
