// Package workspacetest gives the private commands' tests one fixture
// workspace and one way to run a command against it, so hgrep, hsymbol and
// inspect_file are tested over the same tree.
package workspacetest
