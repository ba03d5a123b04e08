package dashboard

// ToolsState is what the page shows of the declared tools (DESIGN §12):
// the directory, the tools in service and the problems of the last load
// (the previous set stays in service while there are any). Per-tool call
// counts are in Totals.ByTool.
type ToolsState struct {
	Dir       string   `json:"dir"`
	InService []string `json:"in_service"`
	Problems  []string `json:"problems"`
}

// maxTools bounds the per-tool counts (the registry holds at most 64).
const maxTools = 64

// Tools makes the summary report the declared tools as state reports them
// when it is asked (it must not call the dashboard).
func Tools(state func() ToolsState) Option { return func(d *Dashboard) { d.tools = state } }

// toolsState is the summary's tools, nil without a Tools option.
func (d *Dashboard) toolsState() *ToolsState {
	if d.tools == nil {
		return nil
	}
	st := d.tools()
	if st.InService == nil {
		st.InService = []string{}
	}
	if st.Problems == nil {
		st.Problems = []string{}
	}
	return &st
}

// countTool counts a call of a declared tool (name "" for shell).
func (t *Totals) countTool(name string) {
	if name == "" {
		return
	}
	if _, ok := t.ByTool[name]; !ok && len(t.ByTool) >= maxTools {
		name = "other"
	}
	t.ByTool[name]++
}
