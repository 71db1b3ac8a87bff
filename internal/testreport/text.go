package testreport

import "fmt"

// Title is the case's name as a list of failures shows it: after its
// suite, unless the suite is only the format's name.
func (c Case) Title(format string) string {
	if c.Suite != "" && c.Suite != format {
		return c.Suite + " " + c.Name
	}
	return c.Name
}

// Where is the case's file:line, "" when it names no file.
func (c Case) Where() string {
	if c.File == "" {
		return ""
	}
	return fmt.Sprintf("%s:%d", c.File, c.Line)
}

// StatusText is the case's status with its kind of failure, when known
// ("failed: data race").
func (c Case) StatusText() string {
	if c.Kind != "" {
		return string(c.Status) + ": " + c.Kind
	}
	return string(c.Status)
}
