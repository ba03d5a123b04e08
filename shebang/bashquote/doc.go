// Package bashquote owns how hpatch-router writes one word for Bash to
// read back: bare when nothing needs quoting, in single quotes otherwise,
// and in Bash's $'…' escapes when the word holds a control character or a
// byte that is not UTF-8, so the word stays on one line. It is Bash's
// rule, not every POSIX shell's: a line every shell must read alike (the
// `shell …` worker command) is package oneline's.
//
// Its users are the command lines Bash runs or the model pastes into Bash:
// a private call's carrier and a rewritten habit (package shebang), and a
// file name in a private command's notice (package worker/privcmd). It sits
// below shebang, apart from it, so that the worker's private commands can
// import the rule without the translator.
package bashquote
