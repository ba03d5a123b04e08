// Package testuser creates throwaway local users for tests that must run
// something as another uid: cross-user attacks on the runtime root and
// launcher, and Codex runs under each login shell. Creating users needs
// root: CI (.ci/run) runs as root; a developer's non-root run skips these
// tests, and under CI=true a missing capability fails them instead
// (testenv.Missing).
package testuser
