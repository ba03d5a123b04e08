package response

import (
	"errors"
	"strings"

	"github.com/tidwall/gjson"

	"hpatch-router/retain"
	"hpatch-router/scriptref"
)

// errRestagedReport: an edit sent again, checked again, gives another
// report than the carrier sent before.
var errRestagedReport = errors.New("checked again, the edit gives another report than the one sent")

// restage stages again the change of a call sent again (same call_id,
// name, namespace and input) that is answered with its earlier carrier,
// when nothing is staged for it and the thread does not know it ran: a
// cut stream or an aborted output discarded what was staged, and the call
// is about to run. A retention is staged as its carrier said; an edit is
// kept only if it gives the report its carrier prints, or else the
// history decides once the call ran.
func (s *Session) restage(callID string, item gjson.Result, carrier string) {
	sc := s.deps.Scripts
	if sc == nil || s.thread == "" || sc.StagedCall(s.thread, callID) || s.deps.Store.Knows(s.thread, callID) {
		return
	}
	input := item.Get("input").String()
	switch item.Get("name").String() {
	case ToolShell:
		if s.deps.Translator.Retains(carrier, scriptref.FormatRef(callID)) {
			content, err := input, error(nil)
			if id, ok := s.deps.Translator.ScriptReference(input); ok {
				content, err = s.resolve(id) // a rerun retains the body it runs
			}
			if err == nil {
				_, err = sc.Stage(s.ctx, s.thread, callID, content)
			}
			if err != nil {
				s.deps.Log.Info("a retention sent again could not be staged again", "call_id", callID, "err", err)
			}
		}
	case ToolHPatch:
		if !strings.HasPrefix(carrier, ReportPrefix) {
			return
		}
		report, err := sc.StageEdit(s.ctx, s.thread, callID, input)
		if err == nil && PrintCarrier(report) != carrier {
			sc.Settle(s.ctx, s.thread, func(id string) retain.CallState {
				if id == callID {
					return retain.CallGone
				}
				return retain.CallPending
			})
			err = errRestagedReport
		}
		if err != nil {
			s.deps.Log.Info("an edit sent again could not be staged again; its history decides once it ran", "call_id", callID, "err", err)
		}
	}
}
