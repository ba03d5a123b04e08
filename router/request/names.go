package request

import "strconv"

// takenNames records, per container, the first injected name already
// defined there and at which input index.
type takenNames []containerUse

type containerUse struct {
	container, name string
	item            int64
}

// add notes name in container unless the container already has one.
func (t *takenNames) add(container, name string, item int64) {
	if t.find(container) < 0 {
		*t = append(*t, containerUse{container, name, item})
	}
}

func (t takenNames) find(container string) int {
	for i, u := range t {
		if u.container == container {
			return i
		}
	}
	return -1
}

// conflict rejects an owner whose container already defines a name the
// router injects there, checking owners in body order.
func (t takenNames) conflict(items []ownerItem) error {
	for _, it := range items {
		if !it.an.owner {
			continue
		}
		k := t.find(it.an.namespace)
		if k < 0 {
			continue
		}
		use := t[k]
		return invalid(CodeToolNameConflict,
			"a tool named %q already exists %s in input[%d] (additional_tools); it would collide with the injected %q tool",
			use.name, containerName(it.an.namespace), use.item, use.name)
	}
	return nil
}

// containerName describes where an owner lives, for error messages.
func containerName(namespace string) string {
	if namespace == "" {
		return "beside a flat exec owner"
	}
	return "in namespace " + strconv.Quote(namespace)
}
