//go:build linux

package worker

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// bashPrintf is GNU Bash's printf builtin without -v (issue 35 item 3):
// mvdan/sh's printf knows neither %q nor floating point, precision or %X,
// and models use them (`printf '%.2f'`, `printf '%q'`). The format is
// reused while arguments remain, missing arguments read as "" or 0, and a
// bad number prints 0 with a message, status 1, as Bash does.
func bashPrintf(stdout, stderr io.Writer, args []string) int {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(stderr, "printf: usage: printf [-v var] format [arguments]")
		return 2
	}
	p := &printer{stderr: stderr, args: args[1:]}
	var out strings.Builder
	for {
		before := p.next
		if stop := p.pass(&out, args[0]); stop {
			break
		}
		if p.next == before || p.next >= len(p.args) {
			break
		}
	}
	_, _ = io.WriteString(stdout, out.String())
	return p.status
}

// printer is one printf run: the arguments and how many were used.
type printer struct {
	stderr io.Writer
	args   []string
	next   int
	status int
}

// arg takes the next argument ("" once they are used up).
func (p *printer) arg() string {
	if p.next >= len(p.args) {
		return ""
	}
	p.next++
	return p.args[p.next-1]
}

// pass writes the format once; stop reports \c in a %b argument or an
// invalid directive, which end the output.
func (p *printer) pass(out *strings.Builder, format string) (stop bool) {
	for i := 0; i < len(format); {
		switch c := format[i]; {
		case c == '\\':
			n, s, _ := unescape(format[i:], false)
			out.WriteString(s)
			i += n
		case c == '%' && i+1 < len(format) && format[i+1] == '%':
			out.WriteByte('%')
			i += 2
		case c == '%':
			n, ok, stopped := p.directive(out, format[i:])
			if !ok || stopped {
				return true
			}
			i += n
		default:
			out.WriteByte(c)
			i++
		}
	}
	return false
}

// directive formats one %… conversion at the start of f and returns its
// length; ok is false for an invalid one (reported).
func (p *printer) directive(out *strings.Builder, f string) (n int, ok, stop bool) {
	i := 1
	for i < len(f) && strings.IndexByte("-+ #0'", f[i]) >= 0 {
		i++
	}
	flags := strings.ReplaceAll(f[1:i], "'", "")
	width, prec := "", ""
	if i < len(f) && f[i] == '*' {
		width = strconv.FormatInt(p.integer(p.arg()), 10)
		i++
	} else {
		j := i
		for i < len(f) && f[i] >= '0' && f[i] <= '9' {
			i++
		}
		width = f[j:i]
	}
	if i < len(f) && f[i] == '.' {
		i++
		if i < len(f) && f[i] == '*' {
			prec = "." + strconv.FormatInt(max(0, p.integer(p.arg())), 10)
			i++
		} else {
			j := i
			for i < len(f) && f[i] >= '0' && f[i] <= '9' {
				i++
			}
			prec = "." + f[j:i]
		}
	}
	for i < len(f) && strings.IndexByte("hlLjzt", f[i]) >= 0 {
		i++ // length modifiers mean nothing here, as in Bash
	}
	if strings.HasPrefix(width, "-") {
		flags, width = flags+"-", width[1:]
	}
	if i >= len(f) {
		fmt.Fprintln(p.stderr, "printf: `"+f+"': missing format character")
		p.status = 1
		return i, false, false
	}
	spec := "%" + flags + width + prec
	switch conv := f[i]; conv {
	case 's':
		out.WriteString(fmt.Sprintf(spec+"s", p.arg()))
	case 'q':
		out.WriteString(fmt.Sprintf(spec+"s", shellQuote(p.arg())))
	case 'b':
		_, s, c := unescape(p.arg(), true)
		out.WriteString(fmt.Sprintf(spec+"s", s))
		stop = c
	case 'c':
		a := p.arg()
		_, size := utf8.DecodeRuneInString(a)
		out.WriteString(fmt.Sprintf(spec+"s", a[:size]))
	case 'd', 'i':
		out.WriteString(fmt.Sprintf(spec+"d", p.integer(p.arg())))
	case 'o', 'u', 'x', 'X':
		verb := map[byte]string{'o': "o", 'u': "d", 'x': "x", 'X': "X"}[conv]
		out.WriteString(fmt.Sprintf(spec+verb, uint64(p.integer(p.arg()))))
	case 'e', 'E', 'f', 'F', 'g', 'G':
		if prec == "" {
			spec += ".6"
		}
		out.WriteString(fmt.Sprintf(spec+string(conv), p.float(p.arg())))
	default:
		fmt.Fprintf(p.stderr, "printf: `%c': invalid format character\n", conv)
		p.status = 1
		return i + 1, false, false
	}
	return i + 1, true, stop
}

// integer reads a Bash printf number: blanks, a sign, then decimal, 0x
// hex or 0 octal digits, or 'c / "c for the character's code. A bad or
// partial number is reported and reads as what parsed (0 for nothing).
func (p *printer) integer(a string) int64 {
	s := strings.TrimLeft(a, " \t\n")
	if s == "" {
		return 0
	}
	if s[0] == '\'' || s[0] == '"' {
		r, _ := utf8.DecodeRuneInString(s[1:])
		if len(s) == 1 {
			return 0
		}
		return int64(r)
	}
	n, err := strconv.ParseInt(s, 0, 64)
	if err == nil {
		return n
	}
	if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
		p.bad(a, "Numerical result out of range")
		if strings.HasPrefix(s, "-") {
			return math.MinInt64
		}
		return math.MaxInt64
	}
	p.bad(a, "invalid number")
	return 0
}

// float reads a floating point argument (a character constant too).
func (p *printer) float(a string) float64 {
	s := strings.TrimLeft(a, " \t\n")
	if s == "" {
		return 0
	}
	if s[0] == '\'' || s[0] == '"' {
		return float64(p.integer(s))
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		p.bad(a, "invalid number")
		return 0
	}
	return f
}

func (p *printer) bad(a, why string) {
	fmt.Fprintf(p.stderr, "printf: %s: %s\n", a, why)
	p.status = 1
}

// unescape decodes the backslash escape at the start of s: in the format
// (inB false) or in a %b argument (inB true, where \c ends all output and
// octal is \0NNN). It returns the bytes consumed; for inB, all of s is
// decoded.
func unescape(s string, inB bool) (n int, out string, stop bool) {
	var b strings.Builder
	i := 0
	for i < len(s) {
		if s[i] != '\\' || i+1 == len(s) {
			if !inB {
				return 1, s[:1], false
			}
			b.WriteByte(s[i])
			i++
			continue
		}
		c := s[i+1]
		i += 2
		switch c {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\\':
			b.WriteByte('\\')
		case 'c':
			if inB {
				return len(s), b.String(), true
			}
			b.WriteString(`\c`)
		case '"', '\'', '?':
			if inB {
				b.WriteByte('\\')
			}
			b.WriteByte(c)
		case 'x', 'u', 'U':
			size := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
			j := i
			for j < len(s) && j-i < size && isHex(s[j]) {
				j++
			}
			if j == i {
				b.WriteByte('\\')
				b.WriteByte(c)
				break
			}
			v, _ := strconv.ParseUint(s[i:j], 16, 32)
			if c == 'x' {
				b.WriteByte(byte(v))
			} else {
				b.WriteRune(rune(v))
			}
			i = j
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j, limit := i-1, i+2
			if inB {
				if c != '0' {
					b.WriteByte('\\')
					b.WriteByte(c)
					break
				}
				j, limit = i, i+3
			}
			for limit > len(s) {
				limit--
			}
			k := j
			for k < limit && s[k] >= '0' && s[k] <= '7' {
				k++
			}
			v := uint64(0)
			if k > j {
				v, _ = strconv.ParseUint(s[j:k], 8, 16)
			}
			b.WriteByte(byte(v))
			i = k
		default:
			b.WriteByte('\\')
			b.WriteByte(c)
		}
		if !inB {
			return i, b.String(), false
		}
	}
	return i, b.String(), false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// shellQuote is Bash's printf %q: ” for the empty word; $'…' with C
// escapes when the word holds a control character or a byte that is not
// UTF-8; otherwise a backslash before every character the shell would
// read specially (# only at the start, ~ at the start or after = or :).
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	if needsANSIC(s) {
		var b strings.Builder
		b.WriteString("$'")
		for i := 0; i < len(s); {
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				fmt.Fprintf(&b, "\\%03o", s[i])
			case r == '\\' || r == '\'':
				b.WriteByte('\\')
				b.WriteRune(r)
			case r < 0x20 || r == 0x7f:
				if e := strings.IndexByte("\a\b\x1b\f\n\r\t\v", byte(r)); e >= 0 {
					b.WriteByte('\\')
					b.WriteByte("abEfnrtv"[e])
				} else {
					fmt.Fprintf(&b, "\\%03o", r)
				}
			default:
				b.WriteString(s[i : i+size])
			}
			i += size
		}
		b.WriteByte('\'')
		return b.String()
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case strings.IndexByte(" '\"\\|&;()<>!{}*[]?^$`,", c) >= 0,
			c == '#' && i == 0,
			c == '~' && (i == 0 || s[i-1] == '=' || s[i-1] == ':'):
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

func needsANSIC(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return true
		}
	}
	return false
}
