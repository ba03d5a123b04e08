package broken

func Before() {}

func Broken( {
	return
}

type After struct{}
