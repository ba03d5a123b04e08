// Package history is the router's history stage: what a request's input
// says of the calls the model was shown, held against what the thread
// remembers. The model's history is the truth (DESIGN §8): a retained
// script's version is its body, then every hpatch call on it whose output
// the request carries as not aborted, in history order.
//
// One call, Stage.Apply, runs it for one request, after package request
// parsed the body and before the request stage rewrites it, in this order:
// put back the retained scripts a restart or a removed directory took
// (from the thread's journal), settle the changes staged for calls that
// ran or did not, bring the scripts to the versions the history told the
// model when it shows a change the thread does not know, and return the
// edits that restore every carrier Codex echoes to the model's original
// call, byte for byte.
//
// It owns the rules of that reading: which output says a call did not run
// (Codex's "aborted"), which carrier is one this router made, and that a
// carrier the store knows but does not match is refused
// (MismatchError), never guessed. What a thread remembers, and its
// journal, is package threadstate's; the scripts are package retain's,
// reached through the Scripts interface.
package history
