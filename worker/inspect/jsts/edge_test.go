package jsts

import (
	"slices"
	"testing"
)

// Edge cases of the tokenizer, one rule each: where a brace, quote or
// slash is hidden and where it is code. Each input ends with a
// declaration after the tricky part: if the tokenizer misread it, that
// declaration would be swallowed, moved or broken.
func TestTokenizerEdges(t *testing.T) {
	tests := []struct {
		name, path, src string
		complete        bool
		want            []string
	}{
		{"template literal: braces in text, substitutions nested three deep", "f.js",
			"const t = `{ ${a ? `}${b}` : `${`{`}`} }`\nfunction after() {}\n",
			true, []string{"constant t@1-1", "function after@2-2"}},
		{"template literal spans lines; an escaped backquote and ${ stay text", "f.js",
			"const t = `line 1\n\\` still ${'}'} \\${ not a substitution\n`\nconst after = 1\n",
			true, []string{"constant t@1-3", "constant after@4-4"}},
		{"a tagged template continues the expression on the next line", "f.js",
			"const q = sql\n`select 1`\nconst after = 1\n",
			true, []string{"constant q@1-2", "constant after@3-3"}},
		{"division after a name, a closing bracket, a number and ++", "f.js",
			"const d = a / b / (c) / 2 / x++ / 1\nconst after = '{'\n",
			true, []string{"constant d@1-1", "constant after@2-2"}},
		{"regular expressions after operators, keywords and at a statement's start", "f.js",
			"const r = x || /{/.test(s), s = [/}/]\nfunction f() { return /\\/{/ }\ntypeof /[/{]/\nconst after = 1\n",
			true, []string{"constant r@1-1", "constant s@1-1", "function f@2-2", "constant after@4-4"}},
		{"a class in a regular expression hides its slash", "f.js",
			"const r = /[/]{/g\nconst after = 1\n",
			true, []string{"constant r@1-1", "constant after@2-2"}},
		{"comments hide quotes and braces; a block comment spans lines", "f.js",
			"// it's { here\n/* a\n { b ' */ const c = 1\nconst after = 2\n",
			true, []string{"constant c@3-3", "constant after@4-4"}},
		{"strings hide braces; a backslash before a line break continues the string", "f.js",
			"const s = '{\\\n}', u = \"\\\"{\"\nconst w = 'a\\\r\nb'\nconst after = 1\n",
			true, []string{"constant s@1-2", "constant u@1-2 name@2", "constant w@3-4", "constant after@5-5"}},
		{"an unterminated string ends with its line and breaks the parse", "f.js",
			"const s = 'open\nconst after = 1\n",
			false, []string{"constant s@1-1", "constant after@2-2"}},
		{"an unterminated template runs to the end", "f.js",
			"const t = `open ${\nconst hidden = 1\n",
			false, []string{"constant t@1-2"}},
		{"an unterminated block comment runs to the end", "f.js",
			"const a = 1\n/* open\nconst hidden = 1\n",
			false, []string{"constant a@1-1"}},
		{"a #! line, a byte order mark, private names", "f.mjs",
			"\ufeff#!/usr/bin/env node\nclass P { #x = 1; #m() { return this.#x } }\n",
			true, []string{"class P@2-2", "method #m@2-2 recv=P"}},
		// Right after a name or number it would be read as part of it:
		// every byte from 0x80 continues a name or number here, where
		// Unicode's identifier classes would end it.
		{"U+2028 ends a statement as a line break does", "f.js",
			"let a = 1 \u2028const b = 2\n",
			true, []string{"variable a@1-1", "constant b@1-1"}},
		{"optional chaining and numbers: ?. is one token, ?.5 a conditional", "f.js",
			"const o = a?.b ?? c?.[0], n = x?.5:1, e = 1e-3 + 0x1F + .5\nconst after = 1\n",
			true, []string{"constant o@1-1", "constant n@1-1", "constant e@1-1", "constant after@2-2"}},
		{"ASI: a line starting with ( or [ continues; ++ and a keyword do not", "f.js",
			"let a = b\n(c)\nlet d = e\n[0]\nlet f = g\n++h\nlet i = 1\nreturn\n",
			true, []string{"variable a@1-2", "variable d@3-4", "variable f@5-5", "variable i@7-7"}},
		{"ASI: an operator at a line's end or start continues the statement", "f.js",
			"const a = 1 +\n2\nconst b = c\n  .d()\n  .e()\nconst f = g\n  ? 1\n  : 2\n",
			true, []string{"constant a@1-2", "constant b@3-5", "constant f@6-8"}},
		{"JSX: quotes, slashes and braces in text; attributes; self-closing; fragments", "f.jsx",
			"const e = <div title='it\"s' a={{ x: '}' }}>don't // {'{'} /x/ <br/><></></div>\nfunction after() {}\n",
			true, []string{"constant e@1-1", "function after@2-2"}},
		{"JSX: an element after return and after =>; nested elements over lines", "f.jsx",
			"function A() {\n  return <ul>\n    <li>'</li>\n  </ul>\n}\nconst B = () => <p>\"</p>\n",
			true, []string{"function A@1-5", "function B@6-6"}},
		{"TypeScript has no JSX: < after = is a type assertion or comparison", "f.ts",
			"const a = <number>x, b = c < d, e = f > g\nconst after = 1\n",
			true, []string{"constant a@1-1", "constant b@1-1", "constant e@1-1", "constant after@2-2"}},
		{"TSX: a generic arrow is no element, a cast with as is no element", "f.tsx",
			"const id = <T,>(x: T) => x\nconst y = z as unknown as Array<string>\nconst after = <b>'</b>\n",
			true, []string{"function id@1-1", "constant y@2-2", "constant after@3-3"}},
		{"TypeScript generics: >> and >>> close two and three type arguments", "f.ts",
			"const m: Map<string, Array<number>> = new Map(), n: A<B<C<D>>> = x, o = 1\n",
			true, []string{"constant m@1-1", "constant n@1-1", "constant o@1-1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, complete := summary(t, tc.path, tc.src)
			if !slices.Equal(got, tc.want) || complete != tc.complete {
				t.Errorf("outline of %q\n got %q complete %v\nwant %q complete %v", tc.src, got, complete, tc.want, tc.complete)
			}
		})
	}
}

// Edge cases of the statement reader: what a declaration spans and which
// names it gives.
func TestDeclarationEdges(t *testing.T) {
	tests := []struct {
		name, path, src string
		complete        bool
		want            []string
	}{
		{"nested classes: only the top-level class and its own methods", "f.js",
			"class Outer {\n  m() {\n    class Inner { n() {} }\n    return Inner\n  }\n  static Nested = class { o() {} }\n}\n",
			true, []string{"class Outer@1-7", "method m@2-5 recv=Outer"}},
		{"functions in blocks and bodies are not top-level", "f.js",
			"{ function hidden() {} }\nif (x) { const y = 1 }\nfunction top() { function inner() {} }\n",
			true, []string{"function top@3-3"}},
		{"JavaScript decorators start a member's span; TypeScript's do not", "f.js",
			"class A {\n  @log\n  @memo(1)\n  m() {}\n}\n",
			true, []string{"class A@1-5", "method m@2-4 name@4 recv=A"}},
		{"TypeScript: decorators before export and class start its span", "f.ts",
			"@Component({\n  selector: 'x',\n})\nexport class C {\n  @Input() name = ''\n  @HostListener('click', ['$event'])\n  onClick(e: Event) {}\n}\n",
			true, []string{"class C@1-8 name@4", "method onClick@7-7 recv=C"}},
		{"async functions, generators, async arrows, async as a name", "f.js",
			"async function a() {}\nfunction* g() {}\nasync function* ag() {}\nconst b = async () => {}, c = async x => x, async = 1\nconst d = async(1)\n",
			true, []string{"function a@1-1", "function g@2-2", "function ag@3-3", "function b@4-4", "function c@4-4", "constant async@4-4", "constant d@5-5"}},
		{"modifiers as member names: get, set, static, async alone", "f.ts",
			"class M {\n  get() {}\n  set(v) {}\n  static() {}\n  async() {}\n  static async *gen() {}\n  public override readonly declare x: number\n}\n",
			true, []string{"class M@1-8", "method get@2-2 recv=M", "method set@3-3 recv=M", "method static@4-4 recv=M", "method async@5-5 recv=M", "method gen@6-6 recv=M"}},
		{"destructuring declarators have no plain name", "f.js",
			"const { a, b: [c] } = o, [d, ...e] = p, f = 1\n",
			true, []string{"constant f@1-1"}},
		{"a function value only when it is the whole value", "f.js",
			"const a = function () {}.bind(x), b = (() => 1)(), c = () => () => 2\n",
			true, []string{"constant a@1-1", "constant b@1-1", "function c@1-1"}},
		{"an arrow with a return type annotation holding braces and arrows", "f.ts",
			"const f = (x: number): { y: () => void } => ({ y() {} })\nconst after = 1\n",
			true, []string{"function f@1-1", "constant after@2-2"}},
		{"export default of an expression, export lists, export = ", "f.ts",
			"export default { a: 1 }\nexport { x, y as z }\nexport = Foo\nexport default class Named {}\n",
			true, []string{"class Named@4-4"}},
		{"dynamic import and import.meta are no imports", "f.mjs",
			"const m = await import('./m.js')\nconst u = import.meta.url\nimport('./side.js')\n",
			true, []string{"constant m@1-1", "constant u@2-2"}},
		{"TypeScript: declare function overloads and an ambient class", "f.d.ts",
			"declare function f(x: string): void\ndeclare function f(x: number): void\ndeclare class K {\n  m(): void\n  static n<T>(t: T): T\n}\nexport declare abstract class L { protected abstract o(): void }\n",
			true, []string{"function f@1-1", "function f@2-2", "class K@3-6", "method m@4-4 recv=K", "method n@5-5 recv=K", "class L@7-7", "method o@7-7 recv=L"}},
		{"TypeScript: a type alias over lines, unions starting with |", "f.ts",
			"type U =\n  | { kind: 'a' }\n  | { kind: 'b' }\ntype V<T> = T extends string\n  ? 'str'\n  : never\nconst after = 1\n",
			true, []string{"type U@1-3", "type V@4-6", "constant after@7-7"}},
		{"TypeScript: type and namespace are names when not declaring", "f.ts",
			"const type = 1\nlet namespace = type\nconst after = 2\n",
			true, []string{"constant type@1-1", "variable namespace@2-2", "constant after@3-3"}},
		{"CRLF rows", "f.ts",
			"export class C {\r\n  m() {}\r\n}\r\nconst x = 1\r\n",
			true, []string{"class C@1-3", "method m@2-2 recv=C", "constant x@4-4"}},
		{"a stray closer breaks the parse and the outline goes on", "f.js",
			"const a = 1 }\nconst b = 2\n",
			false, []string{"constant a@1-1", "constant b@2-2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, complete := summary(t, tc.path, tc.src)
			if !slices.Equal(got, tc.want) || complete != tc.complete {
				t.Errorf("outline of %q\n got %q complete %v\nwant %q complete %v", tc.src, got, complete, tc.want, tc.complete)
			}
		})
	}
}
