"""Parse hpatch edits with the tool's Lark grammar, for grammar_test.go.

stdin:  {"grammar": "<lark text>", "edits": ["...", ...]}
stdout: [[lalr_ok, earley_ok], ...], one pair per edit.

Two parsers read the grammar: LALR(1) with the contextual lexer (which
also proves the grammar unambiguous enough for an LR table) and Earley with
the dynamic lexer (closest to a grammar-constrained sampler, which tries
every terminal the parser allows at each point).
"""
import json
import sys

from lark import Lark
from lark.exceptions import LarkError


def main():
    req = json.load(sys.stdin)
    parsers = [
        Lark(req["grammar"], parser="lalr", lexer="contextual"),
        Lark(req["grammar"], parser="earley", lexer="dynamic"),
    ]
    out = []
    for edit in req["edits"]:
        row = []
        for parser in parsers:
            try:
                parser.parse(edit)
                row.append(True)
            except LarkError:
                row.append(False)
        out.append(row)
    json.dump(out, sys.stdout)


main()
